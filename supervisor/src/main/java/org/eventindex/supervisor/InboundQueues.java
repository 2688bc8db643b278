package org.eventindex.supervisor;

import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompMessageHandler;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.ha.FencedException;
import org.eventindex.supervisor.journal.JournalException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The supervisor's subscriptions (the producer queue once per group-commit slot, the control queue, the heartbeat
 * queue) and the way of each message through the supervisor: the journal disk's room, the engine (which journals and
 * decides), the operator's answer, the fence, then the acknowledgement. A handler that returns acknowledges its
 * message; one that throws leaves it to the broker. A journal that can no longer be written halts consuming, so that
 * messages wait in the broker instead of being dead-lettered one by one.
 */
final class InboundQueues {
    private static final Logger LOG = LoggerFactory.getLogger(InboundQueues.class);

    private final SupervisorConfig config;
    private final String journal;
    private final SupervisorEngine engine;
    private final JournalDiskGuard diskGuard;
    private final OperatorAnswers answers;
    private final Fence fence;
    private final BooleanSupplier stopping;
    private final AtomicBoolean halted = new AtomicBoolean();
    /** {@code supervisor.journal.group.commit.max} subscriptions to the producer queue (group commit). */
    private final List<StompQueueWorker> producers;
    private final StompQueueWorker control;
    private final StompQueueWorker heartbeats;

    /**
     * Subscribes to nothing yet ({@link #start}).
     *
     * @param journal  the journal's file, named when it fails
     * @param stopping true once the supervisor stops: a message held for the journal disk is then given back
     */
    InboundQueues(SupervisorConfig config, String journal, SupervisorEngine engine, JournalDiskGuard diskGuard,
                  OperatorAnswers answers, Fence fence, BooleanSupplier stopping) {
        this.config = Objects.requireNonNull(config, "config is null");
        this.journal = Objects.requireNonNull(journal, "journal is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.diskGuard = Objects.requireNonNull(diskGuard, "diskGuard is null");
        this.answers = Objects.requireNonNull(answers, "answers is null");
        this.fence = Objects.requireNonNull(fence, "fence is null");
        this.stopping = Objects.requireNonNull(stopping, "stopping is null");
        StompSettings stomp = config.stompSettings();
        List<StompQueueWorker> p = new ArrayList<>();
        for (int i = 0; i < config.journal().groupCommitMax(); i++) {
            p.add(new StompQueueWorker("supervisor-producer" + (i == 0 ? "" : "-" + i), stomp,
                    config.producerQueue(), config.prefetch(), handler(m -> handle(m, true))));
        }
        producers = List.copyOf(p);
        control = new StompQueueWorker("supervisor-control", stomp, config.controlQueue(), config.prefetch(),
                handler(m -> handle(m, false)));
        // heartbeats are not journalled: they never wait for the journal's disk (no JournalDiskGuard)
        heartbeats = new StompQueueWorker("supervisor-heartbeat", stomp, config.heartbeatQueue(), config.prefetch(),
                handler(this::heartbeat));
    }

    /** Subscribes: the workers connect (and reconnect) in the background. */
    void start() {
        producers.forEach(StompQueueWorker::start);
        control.start();
        heartbeats.start();
    }

    /** Stops consuming, waiting {@code supervisor.shutdown.grace} for each message in progress. Idempotent. */
    void stop() {
        List<StompQueueWorker> all = new ArrayList<>(producers);
        all.add(control);
        all.add(heartbeats);
        for (StompQueueWorker w : all) {
            w.stop(config.shutdownGrace());
        }
    }

    /**
     * {@link #stop} on a thread of its own, named {@code thread}: the caller may be a worker's handler, which the stop
     * waits for.
     */
    void stopInBackground(String thread) {
        Thread t = new Thread(this::stop, thread);
        t.setDaemon(true);
        t.start();
    }

    /** The first queue not subscribed to, if any (for {@code /ready}). */
    Optional<String> notSubscribed() {
        if (!producers.stream().allMatch(StompQueueWorker::isConnected)) {
            return Optional.of(config.producerQueue());
        }
        if (!control.isConnected()) {
            return Optional.of(config.controlQueue());
        }
        return heartbeats.isConnected() ? Optional.empty() : Optional.of(config.heartbeatQueue());
    }

    /** Whether consuming stopped for good: the journal failed, or another supervisor fenced this one out. */
    boolean halted() {
        return halted.get() || fence.fencedOut();
    }

    @FunctionalInterface
    private interface Handling {
        void handle(StompMessage m) throws Exception;
    }

    /** A queue's handler: messages over the STOMP frame limits are rejected (OVERSIZE) like any other bad message. */
    private static StompMessageHandler handler(Handling h) {
        return new StompMessageHandler() {
            @Override
            public void onMessage(StompMessage m) throws Exception {
                h.handle(m);
            }

            @Override
            public void onOversize(StompMessage m) throws Exception {
                h.handle(m);
            }
        };
    }

    private void handle(StompMessage m, boolean producerQueue) throws Exception {
        // a journal disk about to fill holds the message here, unacknowledged, until it has room again
        diskGuard.awaitRoom(stopping);
        try {
            // the fence is checked by the journal before it writes and once the entry is on disk (Journal.Guard), and
            // below before the acknowledgement (also for a message that journals nothing)
            String replyTo = producerQueue ? null : m.headers().get(Supervisor.REPLY_TO);
            String requestId = m.headers().get(Supervisor.CORRELATION_ID);
            if (m.oversize() != null) {
                engine.onOversizeFrame(producerQueue, m.body(), m.messageId(), m.oversize());
                if (replyTo != null) {
                    answers.answer(replyTo, engine.answerUnreadable(requestId, m.messageId(), m.oversize()));
                }
            } else if (producerQueue) {
                engine.onProducerMessage(m.body(), m.messageId());
            } else if (replyTo == null) {
                engine.onControlMessage(m.body(), m.messageId());
            } else {
                answers.answer(replyTo, engine.onControlMessage(m.body(), m.messageId(), requestId));
            }
            fence.check(); // after the fsync, before the acknowledgement
        } catch (FencedException e) {
            throw unacknowledged(e);
        } catch (IOException e) {
            haltIfJournalFailed(e);
            throw e;
        }
    }

    /** A heartbeat: kept in memory; only a refused one is journalled, and a journal failing then halts as above. */
    private void heartbeat(StompMessage m) throws IOException, InterruptedException {
        try {
            engine.onHeartbeat(m.body(), m.messageId(), m.oversize(), config.heartbeatQueue());
            fence.check();
        } catch (FencedException e) {
            throw unacknowledged(e);
        } catch (IOException e) {
            haltIfJournalFailed(e);
            throw e;
        }
    }

    /** Fenced out: the queue worker leaves the message unacknowledged and stops (the broker gives it to the other). */
    private static InterruptedException unacknowledged(FencedException e) {
        InterruptedException stop = new InterruptedException(e.getMessage() + "; message left unacknowledged");
        stop.initCause(e);
        return stop;
    }

    /**
     * The journal cannot be written: stop consuming so that messages wait in the broker instead of being
     * dead-lettered one by one (the one in hand is, once).
     */
    private void haltIfJournalFailed(IOException e) {
        boolean fatal = e instanceof JournalException j && !j.retriable();
        if (fatal && !fence.fencedOut() && halted.compareAndSet(false, true)) {
            LOG.error("journal {} failed ({}); the supervisor stops consuming. Fix the disk, restart the supervisor,"
                    + " and re-drive the one message the broker dead-lettered", journal, e.getMessage());
            stopInBackground("supervisor-halt");
        }
    }
}
