package org.eventindex.supervisor;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.Json;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEvent;
import org.eventindex.supervisor.journal.JournalException;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * The supervisor's state as one JSON document: the body of a journal checkpoint. It holds exactly what the journal fold
 * builds ({@link SupervisorState}), minus what is derived from it (the URL set, the late objects' conflicts, the
 * message-id set and the signal index are rebuilt on restore), so that restoring a checkpoint of entry N and replaying the entries after N gives the
 * same state as replaying the whole journal ({@code StateCheckpointTest} compares every field).
 *
 * @param format version of this document; a supervisor refuses a format it does not know
 * @param seq    the last journal entry folded into it
 * @param history the console's time series ({@link History}); its minutes are older than the journal's oldest
 *               entries once segments are archived, so only the checkpoint keeps them
 * @param reconciliation the last {@code STATE_RECONCILED} (decision 0054); absent (null) when none, and in
 *               checkpoints written before it existed
 */
record StateCheckpoint(int format, long seq, int lastDspid, int currentEpoch, long eventsInEpoch,
                       long rejectedMessages, long unknownReports, Map<String, ConsumerStats.Totals> consumers,
                       List<Live> datasets, List<RetiredDataset> retired, List<DeletedDataset> deleted,
                       List<JournalEvent.RequestAnswered> answers, Reconciliation reconciliation,
                       History.Saved history) {
    static final int FORMAT = 1;
    private static final int FORMAT_PEEK_BYTES = 256;

    /**
     * {@code deleted}, {@code answers} and {@code history} are absent (null) in checkpoints written before they
     * existed; such a checkpoint restores an empty history, which fills from the entries after it.
     */
    StateCheckpoint {
        consumers = Map.copyOf(Objects.requireNonNull(consumers, "consumers is null"));
        datasets = List.copyOf(Objects.requireNonNull(datasets, "datasets is null"));
        retired = List.copyOf(Objects.requireNonNull(retired, "retired is null"));
        deleted = deleted == null ? List.of() : List.copyOf(deleted);
        answers = answers == null ? List.of() : List.copyOf(answers);
        history = history == null ? new History.Saved(null, null, null) : history;
    }

    /**
     * A live dataset: every field of its {@link TrackedDataset} but the URL set (the candidates' URLs) and the late
     * conflicts (the late objects' claims against the signal's: checkpoints written before they were kept restore
     * them too).
     */
    record Live(String name, List<ManifestFile> manifest, long manifestAt, List<Candidate> candidates,
                List<String> lateObjects, Map<String, String> invalidObjects, List<String> deletedObjects,
                List<String> supersededSignals, List<String> messageIds, long firstObjectAt, long lastObjectAt,
                CollectionState state, ConsumerSignal signal, int dspid, int epoch, long plannedAt, long lastSignalTs,
                long sentAt, int resignals, int automaticResignals, String lastResignalReason, int failures,
                ConsumerReport lastReport, long lastReportAt, long doneAt, long deletedAt) {

        static Live of(TrackedDataset d) {
            return new Live(d.name, d.manifest, d.manifestAt, d.candidates, d.lateObjects, d.invalidObjects,
                    new ArrayList<>(d.deletedObjects), d.supersededSignals, d.messageIds, d.firstObjectAt,
                    d.lastObjectAt, d.state, d.signal, d.dspid, d.epoch, d.plannedAt, d.lastSignalTs, d.sentAt,
                    d.resignals, d.automaticResignals, d.lastResignalReason, d.failures, d.lastReport,
                    d.lastReportAt, d.doneAt, d.deletedAt);
        }

        TrackedDataset toRecord() {
            TrackedDataset d = new TrackedDataset(name);
            d.manifest = manifest;
            d.manifestAt = manifestAt;
            d.candidates.addAll(candidates);
            candidates.forEach(c -> d.urls.add(c.url()));
            d.lateObjects.addAll(lateObjects);
            d.invalidObjects.putAll(invalidObjects);
            d.deletedObjects.addAll(deletedObjects);
            d.supersededSignals.addAll(supersededSignals);
            d.messageIds.addAll(messageIds);
            d.firstObjectAt = firstObjectAt;
            d.lastObjectAt = lastObjectAt;
            d.state = Objects.requireNonNull(state, "state of dataset " + name + " is null");
            d.signal = signal;
            d.dspid = dspid;
            d.epoch = epoch;
            d.plannedAt = plannedAt;
            d.lastSignalTs = lastSignalTs;
            d.sentAt = sentAt;
            d.resignals = resignals;
            d.automaticResignals = automaticResignals;
            d.lastResignalReason = lastResignalReason;
            d.failures = failures;
            d.lastReport = lastReport;
            d.lastReportAt = lastReportAt;
            d.doneAt = doneAt;
            d.deletedAt = deletedAt;
            d.lateConflicts.addAll(LateConflict.all(d));
            return d;
        }
    }

    /** Restores a checkpoint's body into {@code state}, which must be new. */
    static Journal.StateReader restoreInto(SupervisorState state) {
        return (seq, in) -> {
            StateCheckpoint c = readFrom(in);
            if (c.seq() != seq) {
                throw new JournalException(FATAL, "checkpoint holds the state of entry " + c.seq()
                        + " but its trailer says " + seq + "; restore the checkpoint and its journal from a backup");
            }
            state.restore(c);
        };
    }

    void writeTo(OutputStream out) throws IOException {
        Json.mapper().writeValue(out, this);
    }

    /**
     * @throws IOException when the document is not a checkpoint of a format this supervisor reads
     */
    static StateCheckpoint readFrom(InputStream in) throws IOException {
        // the format is the document's first field: a newer one is refused by its version before Jackson maps the
        // rest, which a newer format may have changed
        BufferedInputStream body = new BufferedInputStream(in, FORMAT_PEEK_BYTES);
        body.mark(FORMAT_PEEK_BYTES);
        int format = leadingFormat(body.readNBytes(FORMAT_PEEK_BYTES));
        body.reset();
        Optional<String> newer = FormatVersion.newer("supervisor checkpoint", format, FORMAT, "supervisor");
        if (newer.isPresent()) {
            throw new IOException(newer.get());
        }
        StateCheckpoint c = Json.mapper().readValue(body, StateCheckpoint.class);
        if (c == null || c.format() != FORMAT) {
            throw new IOException("supervisor checkpoint has format " + (c == null ? "none" : c.format())
                    + "; this supervisor reads format " + FORMAT);
        }
        return c;
    }

    /** The {@code format} a checkpoint starts with, 0 when the first bytes do not start with it (then Jackson says). */
    private static int leadingFormat(byte[] prefix) {
        try (JsonParser p = Json.mapper().getFactory().createParser(prefix)) {
            if (p.nextToken() == JsonToken.START_OBJECT && p.nextToken() == JsonToken.FIELD_NAME
                    && "format".equals(p.currentName()) && p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                return p.getIntValue();
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
