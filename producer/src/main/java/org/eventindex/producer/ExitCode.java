package org.eventindex.producer;

/**
 * The producer's process exit codes, the contract with the grid job wrapper (see docs/producer.md). The wrapper
 * retries the job on {@link #TRANSIENT} only.
 */
public enum ExitCode {
    /** The object is stored and the supervisor's broker acknowledged the message. */
    SUCCESS(0, "success"),
    /** Unexpected failure inside the producer (a bug); details on stderr. */
    INTERNAL(1, "internal error"),
    /** Invalid SPB file or bad arguments; nothing was uploaded or sent. Retrying cannot help. */
    BAD_INPUT(2, "bad input"),
    /** Network, broker or object store unavailable or failing; retrying later may succeed. */
    TRANSIENT(3, "transient failure"),
    /** Wrong credentials, missing bucket, unreadable secret file: an operator must fix the configuration. */
    CONFIGURATION(4, "configuration or authentication error");

    private final int code;
    private final String description;

    ExitCode(int code, String description) {
        this.code = code;
        this.description = description;
    }

    public int code() {
        return code;
    }

    public String description() {
        return description;
    }
}
