package org.eventindex.consumer;

import org.eventindex.EventIndexFailure;
import org.eventindex.consolidated.TriggerMenus;
import org.eventindex.spb.SpbFormatException;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Objects;

/**
 * A dataset signal could not be completed. The message is the reason reported to the supervisor: it names the
 * dataset, object or file concerned and what happened. The {@link Kind} tells the supervisor whether sending the same
 * signal again can help: {@link Kind#FATAL} (reported as permanent) when the signal, an object it names or that
 * object's content is wrong (invalid signal, object missing or malformed, content contradicting the signal), so the
 * same signal fails the same way every time; {@link Kind#RETRIABLE} when HDFS, Kudu or S3 failed, or the consumer was
 * stopped.
 */
public final class ConsumeException extends Exception implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    private final Kind kind;

    public ConsumeException(Kind kind, String reason) {
        super(reason);
        this.kind = Objects.requireNonNull(kind, "kind is null");
    }

    public ConsumeException(Kind kind, String reason, Throwable cause) {
        super(reason, cause);
        this.kind = Objects.requireNonNull(kind, "kind is null");
    }

    @Override
    public Kind kind() {
        return kind;
    }

    /**
     * The kind of a failure to read an object or to write what was read: a missing object
     * ({@link FileNotFoundException}) is fatal, and so is any project failure that says so: a malformed object
     * ({@link SpbFormatException}, whatever its problem: the stored bytes do not change; a broken transfer shows as
     * another I/O error or a SHA-256 mismatch), a dataset whose content a consolidated file may not hold
     * ({@link TriggerMenus.LimitException}); any other I/O error is retriable.
     */
    static Kind of(IOException e) {
        return e instanceof FileNotFoundException ? Kind.FATAL : EventIndexFailure.kindOf(e, Kind.RETRIABLE);
    }
}
