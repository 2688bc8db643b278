package org.eventindex.supervisor;

import org.eventindex.supervisor.ha.FencedException;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.supervisor.journal.Journal;

import java.io.IOException;
import java.io.InterruptedIOException;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Whether this supervisor may still act, as the parts that act see it: the queue handlers before an acknowledgement,
 * the senders before a signal or an answer, the cleanup before a deletion (the journal checks the same lease before
 * each write). With a standby it is the lease ({@link Leadership}): once another supervisor took a higher token every
 * check throws, whichever thread notices first. Without a standby it always holds.
 */
final class Fence {
    /** No standby: this supervisor is the only one. */
    static final Fence NONE = new Fence(null);

    private final Leadership leadership;

    private Fence(Leadership leadership) {
        this.leadership = leadership;
    }

    /** The lease of a supervisor with a standby. */
    static Fence of(Leadership leadership) {
        return new Fence(Objects.requireNonNull(leadership, "leadership is null"));
    }

    /** Throws when this supervisor is fenced out: nothing may be journalled, acknowledged, sent or deleted. */
    void check() throws FencedException {
        if (leadership != null) {
            leadership.check();
        }
    }

    /**
     * {@link #check}, waiting while the lease is suspended (see {@link Leadership#awaitLease}): for a caller that holds
     * no lock others need.
     */
    void awaitLease() throws FencedException, InterruptedException {
        if (leadership != null) {
            leadership.awaitLease();
        }
    }

    /** {@link #awaitLease} for a sender whose contract is an IOException: an interruption is one, flag kept. */
    void awaitLeaseToSend() throws IOException {
        try {
            awaitLease();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a suspended lease to be confirmed");
        }
    }

    /** The journal's {@link Journal.Guard}: refuses before a write, waits for a suspended lease after a sync. */
    Journal.Guard journalGuard() {
        return new Journal.Guard() {
            @Override
            public void check() throws IOException {
                Fence.this.check();
            }

            @Override
            public void awaitHeld() throws IOException {
                awaitLeaseToSend();
            }
        };
    }

    /** {@link #check} as a yes or no (a suspended lease is a no), for work that is skipped rather than failed. */
    boolean holds() {
        try {
            check();
            return true;
        } catch (FencedException e) {
            return false;
        }
    }

    /** Whether another supervisor took the lease from this one (for good: it exits and starts again as a standby). */
    boolean fencedOut() {
        return leadership != null && leadership.role() == Leadership.Role.FENCED;
    }

    /**
     * Gives the lease up for the standby (see {@link Leadership#stepDown}); false without a standby (nothing to give).
     */
    boolean stepDown(String why) {
        if (leadership == null) {
            return false;
        }
        leadership.stepDown(why);
        return true;
    }

    /** The fencing token signals carry, with a standby: consumers may refuse one from a lower token than they saw. */
    OptionalLong token() {
        return leadership == null ? OptionalLong.empty() : OptionalLong.of(leadership.token());
    }
}
