package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.names.DatasetName;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A dataset that becomes complete gets its signal: dspid, epoch and time assigned, journalled as SIGNAL_PLANNED, and
 * only then handed to the {@link SignalOutbox}. Not thread-safe: called under the engine's lock.
 */
final class SignalPlanning {
    private static final Logger LOG = LoggerFactory.getLogger(SignalPlanning.class);

    private final SupervisorState state;
    private final Recorder recorder;
    private final SignalOutbox outbox;
    private final SupervisorMetrics metrics;
    private final EpochPolicy epochs;
    private final Clock clock;

    SignalPlanning(SupervisorState state, Recorder recorder, SignalOutbox outbox, SupervisorMetrics metrics,
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
    Optional<ConsumerSignal> planIfComplete(TrackedDataset existing, String name,
                                            List<DatasetManifest.ManifestFile> manifest, Selection selection) {
        if (manifest == null || !selection.complete()) {
            return Optional.empty();
        }
        String container = DatasetName.parse(name).container();
        boolean known = existing != null && existing.dspid >= 0;
        int dspid = known ? existing.dspid : state.lastDspid() + 1;
        int epoch = known ? existing.epoch
                : epochs.epochFor(state.currentEpoch(), state.eventsInEpoch(), selection.expectedEvents());
        // Consumers refuse a signal older than the selection already loaded (DATASETS signal_ts), so a re-selection
        // must carry a later ts than every earlier signal of the dataset, even if the clock went back.
        long ts = Math.max(clock.millis(), existing == null ? 0 : existing.lastSignalTs + 1);
        return Optional.of(SignalPlanner.plan(name, container, selection, dspid, epoch, ts));
    }

    /** Plans (journals) and submits the dataset's signal if it is unsignalled and complete. */
    void planAndRecord(TrackedDataset d) throws IOException {
        if (d.signalled()) {
            return;
        }
        Optional<ConsumerSignal> planned = planIfComplete(d, d.name, d.manifest, d.selection());
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
}
