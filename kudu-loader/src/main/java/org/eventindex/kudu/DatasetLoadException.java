package org.eventindex.kudu;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * A dataset could not be loaded (rows refused by Kudu, counts not matching, a malformed event reference). The
 * dataset stays LOADING; loading it again cleans up and retries from the start.
 */
public final class DatasetLoadException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String dataset;

    public DatasetLoadException(String dataset, String reason) {
        super("dataset " + dataset + ": " + reason);
        this.dataset = requireNonNull(dataset, "dataset is null");
    }

    public DatasetLoadException(String dataset, String reason, Throwable cause) {
        super("dataset " + dataset + ": " + reason, cause);
        this.dataset = requireNonNull(dataset, "dataset is null");
    }

    public String dataset() {
        return dataset;
    }
}
