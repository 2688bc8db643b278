package org.eventindex.consumer;

/**
 * A dataset signal could not be completed. The message is the reason reported to the supervisor: it names the
 * dataset, object or file concerned and what happened.
 */
public final class ConsumeException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConsumeException(String reason) {
        super(reason);
    }

    public ConsumeException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
