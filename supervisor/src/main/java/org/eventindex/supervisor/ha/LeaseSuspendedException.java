package org.eventindex.supervisor.ha;

/**
 * The active's lease is unconfirmed (its ZooKeeper connection is suspended, its session not known to be expired):
 * nothing may be journalled, signalled or acknowledged now, but the lease may be confirmed again with the same
 * session and token ({@link Leadership#awaitLease} waits for that). A {@link FencedException}, so that whoever does not
 * tell the two apart refuses to act as it would when fenced; {@link Kind#RETRIABLE}, unlike it (decision 0048).
 */
public final class LeaseSuspendedException extends FencedException {
    private static final long serialVersionUID = 1L;

    public LeaseSuspendedException(String message) {
        super(message);
    }

    @Override
    public Kind kind() {
        return Kind.RETRIABLE;
    }
}
