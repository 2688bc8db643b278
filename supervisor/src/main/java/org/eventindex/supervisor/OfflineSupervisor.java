package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.supervisor.journal.Journal;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * The supervisor's journal and decisions without a broker, for the benchmarks ({@code bin/bench-supervisor}): messages
 * go to the engine as {@code InboundQueues} hands them over, planned signals to a {@link Consumer} instead of the
 * consumers' queue, and {@link #replay} is the journal part of a start ({@code Supervisor}: open, restore the
 * checkpoint, replay). Built from a {@link SupervisorConfig} as the daemon builds its engine; nothing is sent, nothing
 * is quarantined, no lease or retry runs (there is no tick).
 */
public final class OfflineSupervisor implements AutoCloseable {
    private final Journal journal;
    private final SupervisorState state;
    private final SupervisorEngine engine;

    private OfflineSupervisor(Journal journal, SupervisorState state, SupervisorEngine engine) {
        this.journal = journal;
        this.state = state;
        this.engine = engine;
    }

    /**
     * Opens (replays) the journal in {@code config}'s journal folder and builds the engine on it.
     *
     * @param signals where each planned signal goes (the daemon's dispatcher sends it to the consumers' queue)
     */
    public static OfflineSupervisor open(SupervisorConfig config, Clock clock, Consumer<ConsumerSignal> signals)
            throws IOException {
        requireNonNull(signals, "signals is null");
        Replayed replayed = replay(config, true);
        SupervisorEngine engine = new SupervisorEngine(replayed.journal, replayed.state,
                MessageValidator.forEndpoint(config.s3Bucket(), config.cleanup().s3Endpoint()), signals::accept,
                Quarantine.NONE, new SupervisorMetrics(new PrometheusRegistry()), requireNonNull(clock, "clock is null"),
                new EpochPolicy(config.kuduEpoch(), config.epochs().maxEvents()), new HandOffPolicy(config.handOff()),
                config.maxMessageBytes(), config.producerQueue(), config.controlQueue());
        return new OfflineSupervisor(replayed.journal, replayed.state, engine);
    }

    /**
     * The journal part of a start: a new state, the checkpoint restored into it, the journal after it replayed.
     *
     * @param deferSelections as {@code Supervisor} replays (each unsignalled dataset's selection computed once, at the
     *                        end), or with every entry applied as if it were live (before 2026-11-25)
     */
    public static Replayed replay(SupervisorConfig config, boolean deferSelections) throws IOException {
        SupervisorState state = new SupervisorState(config.console().historyDays());
        Journal journal = state.replayJournal(config.journal().dir(), config.journal().keepSegments(),
                deferSelections);
        return new Replayed(journal, state);
    }

    /** A producer message's body, as the producer queue's worker hands it over. */
    public void onProducerMessage(byte[] body, String brokerMessageId) throws IOException {
        engine.onProducerMessage(body, brokerMessageId);
    }

    /** A control message's body (a manifest, a consumer's report), as the control queue's worker hands it over. */
    public void onControlMessage(byte[] body, String brokerMessageId) throws IOException {
        engine.onControlMessage(body, brokerMessageId);
    }

    /** What the dispatcher reports once a signal is on the consumers' queue. */
    public void onSignalSent(ConsumerSignal signal) {
        engine.onSignalSent(signal);
    }

    /** The object URLs of {@code dataset}, sorted, if it is DONE (what the cleanup deletes); else none. */
    public List<String> doneObjects(String dataset) {
        return engine.read(s -> s.find(dataset).filter(d -> d.state == CollectionState.DONE)
                .map(d -> d.urls.stream().sorted().toList()).orElse(List.of()));
    }

    /** What the cleanup reports once it deleted {@code urls} of {@code dataset}: the dataset retires. */
    public void onObjectsDeleted(String dataset, List<String> urls) throws IOException {
        engine.onObjectsDeleted(dataset, urls);
    }

    /** Writes a checkpoint of the state now, as the periodic checkpoint does. */
    public void checkpoint() throws IOException {
        engine.checkpoint(1);
    }

    /** The journal's last entry. */
    public long lastSeq() {
        return journal.lastSeq();
    }

    /** The entry the last checkpoint holds the state of, 0 without one. */
    public long checkpointSeq() {
        return journal.checkpointSeq();
    }

    /** Datasets known (live, not retired). */
    public int datasets() {
        return engine.read(s -> s.all().size());
    }

    /** Live datasets with a signal planned or sent. */
    public long signalledDatasets() {
        return engine.read(s -> s.all().stream().filter(TrackedDataset::signalled).count());
    }

    @Override
    public void close() throws IOException {
        journal.close();
    }

    /** The state a start rebuilt from a journal, kept reachable (its heap is what a start retains). */
    public static final class Replayed implements AutoCloseable {
        private final Journal journal;
        private final SupervisorState state;

        private Replayed(Journal journal, SupervisorState state) {
            this.journal = journal;
            this.state = state;
        }

        /** Journal entries replayed after the checkpoint (all of them without one). */
        public long entries() {
            return journal.replaySummary().entries();
        }

        /** The last entry the state holds. */
        public long lastSeq() {
            return state.lastSeq();
        }

        /** Serialises a checkpoint of the state to {@code out} (no fsync), as the periodic checkpoint does. */
        public void writeCheckpoint(OutputStream out) throws IOException {
            state.checkpoint().writeTo(out);
        }

        /** Closes the journal; the state stays readable. */
        @Override
        public void close() throws IOException {
            journal.close();
        }
    }
}
