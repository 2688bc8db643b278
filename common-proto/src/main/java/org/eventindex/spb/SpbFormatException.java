package org.eventindex.spb;

import java.io.IOException;
import org.eventindex.EventIndexFailure;

/**
 * An SPB stream is malformed. Always names the source (file or object) and the uncompressed byte offset where the
 * problem was found, so an operator can tell which file is bad and why. Always {@link Kind#FATAL}: reading the same
 * bytes again finds the same problem (a caller that will read other bytes, e.g. after a cut transfer, decides so).
 */
public final class SpbFormatException extends IOException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    /** What is wrong, so callers can map problems to exit codes or metrics without parsing messages. */
    public enum Problem {
        EMPTY, BAD_GZIP, BAD_MAGIC, BAD_VERSION, UNKNOWN_TYPE, BAD_MESSAGE_VERSION, TRUNCATED, OVERSIZE,
        BAD_PROTOBUF, BAD_ORDER, COUNT_MISMATCH, BAD_CONTENT
    }

    private final String source;
    private final long offset;
    private final Problem problem;

    public SpbFormatException(String source, long offset, Problem problem, String detail) {
        this(source, offset, problem, detail, null);
    }

    public SpbFormatException(String source, long offset, Problem problem, String detail, Throwable cause) {
        super(source + ": malformed SPB at uncompressed offset " + offset + ": " + problem + ": " + detail, cause);
        this.source = source;
        this.offset = offset;
        this.problem = problem;
    }

    public String source() {
        return source;
    }

    public long offset() {
        return offset;
    }

    public Problem problem() {
        return problem;
    }

    @Override
    public Kind kind() {
        return Kind.FATAL;
    }
}
