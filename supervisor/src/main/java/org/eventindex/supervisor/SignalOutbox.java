package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;

/**
 * Where journalled signals go to be sent. Must not block: the engine calls it while holding its lock, after the
 * signal is on disk; the implementation retries until the broker accepts, then reports back.
 */
@FunctionalInterface
interface SignalOutbox {
    void submit(ConsumerSignal signal);
}
