package org.eventindex.supervisor;

import org.eventindex.stomp.StompBroker;
import org.eventindex.stomp.StompFanIn;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompMessageHandler;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.ha.FencedException;
import org.eventindex.supervisor.ha.LeaseSuspendedException;
import org.eventindex.supervisor.journal.JournalException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The supervisor's subscriptions (the producer queue once per group-commit slot, the control queue, the heartbeat
 * queue), each on every broker ({@link StompFanIn}), and the way of each message through the supervisor: the journal disk's room, the engine (which journals and
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
    private final List<StompFanIn> producers;
    private final StompFanIn control;
    private final StompFanIn heartbeats;

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
        List<StompFanIn> p = new ArrayList<>();
        for (int i = 0; i < config.journal().groupCommitMax(); i++) {
            p.add(fanIn("supervisor-producer" + (i == 0 ? "" : "-" + i), stomp, config.producerQueue(),
                    broker -> handler(m -> handle(m, null))));
        }
        producers = List.copyOf(p);
        // an operator's answer goes back through the broker its request came from: its reply queue lives there
        control = fanIn("supervisor-control", stomp, config.controlQueue(), broker -> handler(m -> handle(m, broker)));
        // heartbeats are not journalled: they never wait for the journal's disk (no JournalDiskGuard)
        heartbeats = fanIn("supervisor-heartbeat", stomp, config.heartbeatQueue(), broker -> handler(this::heartbeat));
    }

    private StompFanIn fanIn(String name, StompSettings stomp, String queue, StompFanIn.Handlers handlers) {
        return new StompFanIn(name, stomp, queue, config.prefetch(), handlers, StompFanIn.RECONNECT_BACKOFF,
                null);
    }

    /** Subscribes: the fan-ins resolve the brokers and connect (and reconnect) in the background. */
    void start() {
        all().forEach(StompFanIn::start);
    }

    private List<StompFanIn> all() {
        List<StompFanIn> all = new ArrayList<>(producers);
        all.add(control);
        all.add(heartbeats);
        return all;
    }

    /** Stops consuming, waiting {@code supervisor.shutdown.grace} for each message in progress. Idempotent. */
    void stop() {
        for (StompFanIn f : all()) {
            f.stop(config.shutdownGrace());
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

    /**
     * The first queue subscribed to on no broker, if any (for {@code /ready}): the supervisor is ready while each
     * queue is read through at least one broker.
     */
    Optional<String> notSubscribed() {
        return all().stream().filter(f -> !f.isConnected()).map(StompFanIn::destination).findFirst();
    }

    /** Queue to (broker to subscribed), for {@code eventindex_broker_subscribed}; the group-commit slots merged. */
    Map<String, Map<String, Boolean>> subscriptions() {
        Map<String, Map<String, Boolean>> out = new LinkedHashMap<>();
        for (StompFanIn f : all()) {
            Map<String, Boolean> q = out.computeIfAbsent(f.destination(), k -> new TreeMap<>());
            f.subscriptions().forEach((b, up) -> q.merge(b, up, Boolean::logicalAnd));
        }
        return out;
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

    /** @param controlFrom the broker a control message came through (its answer goes back there); null: producer */
    private void handle(StompMessage m, StompBroker controlFrom) throws Exception {
        // a journal disk about to fill holds the message here, unacknowledged, until it has room again
        diskGuard.awaitRoom(stopping);
        whileLeaseHeld(m, () -> handleOnce(m, controlFrom));
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /**
     * Runs {@code step} for {@code m} while the lease is held, then checks the fence before the acknowledgement (also
     * for a message that journals nothing); the journal checks it before it writes and once the entry is on disk
     * (Journal.Guard). A suspended lease (decision 0048) holds the message here, unacknowledged, until ZooKeeper
     * confirms the lease again; a step it refused half-way (nothing new journalled) runs again then, as the broker's
     * redelivery of the message would. Fenced out, the worker stops and leaves the message to the broker.
     */
    private void whileLeaseHeld(StompMessage m, Step step) throws Exception {
        while (true) {
            try {
                fence.awaitLease();
                step.run();
                fence.awaitLease(); // after the fsync, before the acknowledgement
                return;
            } catch (LeaseSuspendedException e) {
                LOG.info("message {} waits, unacknowledged, for the suspended lease: {}", m.messageId(),
                        e.getMessage());
            } catch (FencedException e) {
                throw unacknowledged(e);
            } catch (IOException e) {
                stepDownIfJournalStoreFailed(e);
                haltIfJournalFailed(e);
                throw e;
            }
        }
    }

    private void handleOnce(StompMessage m, StompBroker controlFrom) throws Exception {
        boolean producerQueue = controlFrom == null;
        String replyTo = producerQueue ? null : m.headers().get(Supervisor.REPLY_TO);
        String requestId = m.headers().get(Supervisor.CORRELATION_ID);
        if (m.oversize() != null) {
            engine.onOversizeFrame(producerQueue, m.body(), m.messageId(), m.oversize());
            if (replyTo != null) {
                answers.answer(controlFrom, replyTo, engine.answerUnreadable(requestId, m.messageId(), m.oversize(),
                        Issuer.of(m.headers())));
            }
        } else if (producerQueue) {
            engine.onProducerMessage(m.body(), m.messageId());
        } else if (replyTo == null) {
            engine.onControlMessage(m.body(), m.messageId());
        } else {
            answers.answer(controlFrom, replyTo, engine.onControlMessage(m.body(), m.messageId(), requestId,
                    Issuer.of(m.headers())));
        }
    }

    /** A heartbeat: kept in memory; only a refused one is journalled, and a journal failing then halts as above. */
    private void heartbeat(StompMessage m) throws Exception {
        whileLeaseHeld(m, () -> engine.onHeartbeat(m.body(), m.messageId(), m.oversize(), config.heartbeatQueue()));
    }

    /** Fenced out: the queue worker leaves the message unacknowledged and stops (the broker gives it to the other). */
    private static InterruptedException unacknowledged(FencedException e) {
        InterruptedException stop = new InterruptedException(e.getMessage() + "; message left unacknowledged");
        stop.initCause(e);
        return stop;
    }

    /**
     * With the journal on HDFS and a standby ({@code supervisor.ha.store=zookeeper}), a journal that can no longer be
     * written is HDFS failing (the DataNodes of its pipeline down, a block that cannot be allocated), not a disk an
     * operator must replace: this supervisor gives the lease up and exits to start again as a standby, and whichever
     * supervisor takes the lease waits for HDFS at the hand-over (its {@code /ready} says so) and carries on when HDFS
     * answers. The message in hand is left unacknowledged (not dead-lettered): the broker hands it to the next holder.
     *
     * @throws InterruptedException after stepping down, so that the queue worker stops without a NACK
     */
    private void stepDownIfJournalStoreFailed(IOException e) throws InterruptedException {
        boolean fatal = e instanceof JournalException j && !j.retriable();
        if (!fatal || !config.ha().enabled() || config.ha().zooKeeper().isEmpty()) {
            return;
        }
        if (!fence.fencedOut() && halted.compareAndSet(false, true)) {
            LOG.error("journal {} failed ({}); giving the lease up: the standby takes over and waits for HDFS, and this"
                    + " supervisor exits to start again as a standby", journal, e.getMessage());
            fence.stepDown("its journal " + journal + " on HDFS failed (" + e.getMessage() + ")");
        }
        // every worker that meets the failed journal, also while another one is stepping down
        InterruptedException stop = new InterruptedException("journal " + journal + " failed; the lease is given up"
                + " and the message left unacknowledged");
        stop.initCause(e);
        throw stop;
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
