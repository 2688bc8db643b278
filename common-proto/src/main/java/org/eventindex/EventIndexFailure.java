package org.eventindex;

/**
 * The project's one exception root: every exception the project throws implements it and says, where it is thrown,
 * whether doing the same thing again may succeed ({@link Kind#RETRIABLE}: a network, broker, store or disk failure) or
 * cannot ({@link Kind#FATAL}: bad input, a malformed object, a refused credential, a damaged journal; an operator or a
 * different input must change something first). Retry decisions read {@link #retriable()}.
 *
 * <p>An interface rather than a common superclass because the project's exceptions need two different Java
 * supertypes: those thrown through I/O APIs (the SPB reader, the STOMP connection, the journal, the Kudu loader) stay
 * {@link java.io.IOException}s, while the producer's and the consumer's outcome exceptions must not become
 * IOExceptions: the many {@code catch (IOException e)} that turn I/O errors into them would start catching, and
 * re-classifying, them. Implemented by {@link Throwable}s only.
 *
 * <p>Not under the root: a private wrapper that carries another exception across a lambda or a thread inside one class
 * and is unwrapped there (the consumer's {@code MergePipeline.SinkFailure}); nothing outside its class sees it.
 */
public interface EventIndexFailure {

    /** Whether the same operation can succeed later. */
    enum Kind {
        /** The same operation may succeed later (after a wait, on another connection, after a restart). */
        RETRIABLE,
        /** The same operation fails the same way every time. */
        FATAL
    }

    Kind kind();

    default boolean retriable() {
        return kind() == Kind.RETRIABLE;
    }

    /**
     * The kind of any throwable: a project failure's own, {@code otherwise} for others (a JDK or library exception,
     * whose meaning the caller knows).
     */
    static Kind kindOf(Throwable t, Kind otherwise) {
        return t instanceof EventIndexFailure f ? f.kind() : otherwise;
    }
}
