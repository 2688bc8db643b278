package org.eventindex.kudu;

import org.eventindex.EventIndexFailure;

import java.io.IOException;

import static java.util.Objects.requireNonNull;

/**
 * A dataset could not be loaded (rows refused by Kudu, counts not matching, a malformed event reference, a newer
 * load in place). The dataset stays LOADING; loading it again cleans up and retries from the start. The thrower
 * decides the {@link Kind}: {@link Kind#FATAL} when the same load request fails the same way every time (superseded,
 * placed elsewhere under the same load id, malformed content).
 */
public final class DatasetLoadException extends IOException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    private final String dataset;
    private final Kind kind;

    public DatasetLoadException(Kind kind, String dataset, String reason) {
        this(kind, dataset, reason, null);
    }

    public DatasetLoadException(Kind kind, String dataset, String reason, Throwable cause) {
        super("dataset " + dataset + ": " + reason, cause);
        this.kind = requireNonNull(kind, "kind is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
    }

    public String dataset() {
        return dataset;
    }

    @Override
    public Kind kind() {
        return kind;
    }
}
