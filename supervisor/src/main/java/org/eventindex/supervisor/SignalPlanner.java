package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.SignalObject;
import org.eventindex.names.DatasetName;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The one place that plans a complete dataset's signal: dspid, epoch and time assigned, the signal built from the
 * {@link Selection} ({@link #plan}, pure), journalled as SIGNAL_PLANNED, and only then handed to the
 * {@link SignalOutbox}. Not thread-safe: called under the engine's lock.
 */
final class SignalPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(SignalPlanner.class);
    private static final String ID_NAMESPACE = "eventindex-signal/v1";

    private final SupervisorState state;
    private final Recorder recorder;
    private final SignalOutbox outbox;
    private final SupervisorMetrics metrics;
    private final EpochPolicy epochs;
    private final Clock clock;

    SignalPlanner(SupervisorState state, Recorder recorder, SignalOutbox outbox, SupervisorMetrics metrics,
                   EpochPolicy epochs, Clock clock) {
        this.state = Objects.requireNonNull(state, "state is null");
        this.recorder = Objects.requireNonNull(recorder, "recorder is null");
        this.outbox = Objects.requireNonNull(outbox, "outbox is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.epochs = Objects.requireNonNull(epochs, "epochs is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
    }

    /**
     * The signal to send if the selection is complete. A dataset signalled before keeps its dspid and epoch; a new
     * one gets the next dspid and the epoch the {@link EpochPolicy} gives.
     *
     * @param existing the dataset's record, null for a dataset not recorded yet
     */
    Optional<ConsumerSignal> planIfComplete(TrackedDataset existing, DatasetName name,
                                            List<DatasetManifest.ManifestFile> manifest, Selection selection) {
        if (manifest == null || !selection.complete()) {
            return Optional.empty();
        }
        boolean known = existing != null && existing.dspid >= 0;
        int dspid = known ? existing.dspid : state.lastDspid() + 1;
        int epoch = known ? existing.epoch
                : epochs.epochFor(state.currentEpoch(), state.eventsInEpoch(), selection.expectedEvents());
        // Consumers refuse a signal older than the selection already loaded (DATASETS signal_ts), so a re-selection
        // must carry a later ts than every earlier signal of the dataset, even if the clock went back.
        long ts = Math.max(clock.millis(), existing == null ? 0 : existing.lastSignalTs + 1);
        return Optional.of(plan(name, selection, dspid, epoch, ts));
    }

    /** Plans (journals) and submits the signal of a recorded dataset if it is unsignalled and complete. */
    void planAndRecord(DatasetName name) throws IOException {
        TrackedDataset d = state.find(name.toString()).orElseThrow(
                () -> new IllegalStateException("dataset " + name + " is not recorded"));
        if (d.signalled()) {
            return;
        }
        Optional<ConsumerSignal> planned = planIfComplete(d, name, d.manifest, d.selection());
        if (planned.isPresent()) {
            recorder.record(List.of(new JournalEvent.SignalPlanned(planned.get())));
            submit(planned.get());
        }
    }

    /** Hands a signal whose SIGNAL_PLANNED entry is on disk to the outbox. */
    void submit(ConsumerSignal s) {
        metrics.signalsPlanned.inc();
        LOG.info("dataset {} complete: signal {} planned (dspid {}, epoch {}, {} objects, {} events)", s.dataset(),
                s.signalId(), s.dspid(), s.epoch(), s.objects().size(), s.expectedEvents());
        outbox.submit(s);
    }

    /**
     * The signal of a complete selection. Pure: the same dataset and selection always give the same {@code signalId}
     * and the same object list, so a re-sent signal is recognisably the same.
     *
     * @throws IllegalStateException naming the dataset when the selection is not complete
     */
    static ConsumerSignal plan(DatasetName name, Selection selection, int dspid, int epoch, long tsMillis) {
        String dataset = name.toString();
        if (!selection.complete()) {
            throw new IllegalStateException("dataset " + dataset + " is not complete: " + selection.missingGuids().size()
                    + " of " + selection.expectedFiles() + " files have no valid object");
        }
        return new ConsumerSignal(ConsumerSignal.TYPE, signalId(dataset, selection.objects()), dataset, name.container(),
                dspid, epoch, selection.objects(), selection.expectedEvents(), tsMillis);
    }

    /** A name-based UUID of the dataset and, per object in signal order, its URL and chosen GUIDs. */
    static String signalId(String dataset, List<SignalObject> objects) {
        StringBuilder sb = new StringBuilder(ID_NAMESPACE).append('\n').append(dataset).append('\n');
        for (SignalObject o : objects) {
            sb.append(o.url()).append('\t').append(String.join(",", o.guids())).append('\n');
        }
        return UUID.nameUUIDFromBytes(sb.toString().getBytes(StandardCharsets.UTF_8)).toString();
    }
}
