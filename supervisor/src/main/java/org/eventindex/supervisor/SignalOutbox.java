package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;

/**
 * Where journalled signals go to be sent. Must not block: the engine calls it while holding its lock, after the
 * signal is on disk; the implementation retries until the broker accepts, then reports back to the {@link Ledger}.
 */
@FunctionalInterface
interface SignalOutbox {
    void submit(ConsumerSignal signal);

    /**
     * The owner of the signals (the engine), as the outbox sees it: asked before each send whether a signal is still
     * its dataset's (a re-selection may have superseded it while it waited), told once the outbox is done with it.
     * Called on the outbox's own thread, never from inside {@link #submit}.
     */
    interface Ledger {
        boolean isCurrent(ConsumerSignal signal);

        /** The outbox is done with {@code signal}: sent, or dropped as superseded (only the former is recorded). */
        void onSignalSent(ConsumerSignal signal);
    }
}
