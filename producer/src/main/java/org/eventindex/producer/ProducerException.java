package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import org.eventindex.EventIndexFailure;

/**
 * A producer run failed; {@link #exitCode()} says how the job wrapper should react. The message is one line. Only a
 * {@link ExitCode#TRANSIENT} failure is {@link Kind#RETRIABLE}, by the producer's retry loop and by the job wrapper.
 */
public final class ProducerException extends Exception implements EventIndexFailure {
    private static final long serialVersionUID = 1L;
    private final ExitCode exitCode;

    public ProducerException(ExitCode exitCode, String message, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.exitCode = requireNonNull(exitCode, "exitCode is null");
        if (exitCode == ExitCode.SUCCESS) {
            throw new IllegalArgumentException("a failure cannot exit with SUCCESS");
        }
    }

    public ProducerException(ExitCode exitCode, String message) {
        this(exitCode, message, null);
    }

    public ExitCode exitCode() {
        return exitCode;
    }

    @Override
    public Kind kind() {
        return exitCode == ExitCode.TRANSIENT ? Kind.RETRIABLE : Kind.FATAL;
    }
}
