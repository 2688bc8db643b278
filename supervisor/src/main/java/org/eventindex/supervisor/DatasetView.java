package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.SignalObject;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the supervisor knows of one dataset, as served at {@code /datasets/<name>} and returned by
 * {@link Supervisor#dataset}. Immutable snapshot. Times are ISO-8601 in JSON, null when not reached.
 *
 * @param expectedFiles      files in the manifest, -1 while no manifest is registered
 * @param filesWithCandidate expected files that have a valid object (without manifest: distinct files claimed)
 * @param missingGuids       expected files without a valid object yet
 * @param objectsReported    every object reported for the dataset, including duplicates and late ones
 * @param selectedObjects    the objects to read with their chosen GUIDs (once signalled: exactly the signal's)
 * @param duplicateObjects   objects that won no file (retries whose files were all taken): never read
 * @param lateObjects        objects reported after the dataset was signalled: recorded, never read
 * @param lateConflicts      claims of late objects that disagree with the signal's claim on the same file (event
 *                           count, or run ranges when both have them): information, the dataset does not change
 * @param invalidClaims      claims refused because their event count is not the manifest's
 * @param unexpectedGuids    files claimed by objects but absent from the manifest: never read
 * @param expectedEvents     events in the selected files, per the producers
 * @param dspid              dataset id, null until signalled
 * @param epoch              Kudu range, null until signalled
 * @param signalId           null until signalled
 * @param resignals          times the signal was sent again (operator or automatic)
 * @param invalidObjects     objects that will never be selected again -> why
 * @param conflicts          files whose attempts disagree with nothing to arbitrate (the dataset is HELD)
 * @param heldReason         why the dataset is HELD, null otherwise
 * @param supersededSignals  earlier signals replaced by a re-selection
 * @param failures           FAILED reports for the current signal
 * @param automaticResignals re-sends decided by the supervisor (lease expired, retry after FAILED)
 * @param deletedObjects     objects the cleanup deleted
 * @param retiredAt          when the cleanup deleted the last of its objects, null while it is live: a retired
 *                           dataset keeps its ids, counts, times and last report; its lists are empty (see
 *                           {@code RetiredDataset})
 * @param waitingFor         what the dataset waits for before it can complete, when nothing else says it: its file
 *                           list ({@link DatasetViews#WAITING_FOR_FILE_LIST}) while it has neither a manifest nor a
 *                           catalogue entry; null otherwise
 * @param lease              SIGNALLED only: its signal's lease (the holder's progress, when it expires); null
 *                           otherwise
 */
public record DatasetView(
        String name,
        String container,
        CollectionState state,
        int expectedFiles,
        int filesWithCandidate,
        List<String> missingGuids,
        int objectsReported,
        List<SignalObject> selectedObjects,
        List<String> duplicateObjects,
        List<String> lateObjects,
        List<LateConflict> lateConflicts,
        List<InvalidClaim> invalidClaims,
        List<String> unexpectedGuids,
        long expectedEvents,
        Integer dspid,
        Integer epoch,
        String signalId,
        int resignals,
        Timeline times,
        ConsumerOutcome consumer,
        Map<String, String> invalidObjects,
        List<Conflict> conflicts,
        String heldReason,
        List<String> supersededSignals,
        int failures,
        int automaticResignals,
        String lastResignalReason,
        int deletedObjects,
        @JsonSerialize(using = ToStringSerializer.class) Instant retiredAt,
        String waitingFor,
        Lease lease) {

    public DatasetView {
        missingGuids = List.copyOf(missingGuids);
        selectedObjects = List.copyOf(selectedObjects);
        duplicateObjects = List.copyOf(duplicateObjects);
        lateObjects = List.copyOf(lateObjects);
        lateConflicts = List.copyOf(lateConflicts);
        invalidClaims = List.copyOf(invalidClaims);
        unexpectedGuids = List.copyOf(unexpectedGuids);
        invalidObjects = Map.copyOf(invalidObjects);
        conflicts = List.copyOf(conflicts);
        supersededSignals = List.copyOf(supersededSignals);
    }

    /** This view with the lease {@code l} of its signal. */
    DatasetView withLease(Lease l) {
        return new DatasetView(name, container, state, expectedFiles, filesWithCandidate, missingGuids,
                objectsReported, selectedObjects, duplicateObjects, lateObjects, lateConflicts, invalidClaims,
                unexpectedGuids, expectedEvents, dspid, epoch, signalId, resignals, times, consumer, invalidObjects,
                conflicts, heldReason, supersededSignals, failures, automaticResignals, lastResignalReason,
                deletedObjects, retiredAt, waitingFor, l);
    }

    /**
     * When things happened to the dataset.
     *
     * @param traversalTime first object reported -> consumer reported DONE (the seed's user-visible latency,
     *                      measured from the supervisor's side), null until DONE
     */
    public record Timeline(
            @JsonSerialize(using = ToStringSerializer.class) Instant firstObjectAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant lastObjectAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant manifestAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant signalPlannedAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant signalSentAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant doneAt,
            @JsonSerialize(using = ToStringSerializer.class) Duration traversalTime) {
    }

    /**
     * The lease of a SIGNALLED dataset's signal: how long it is left to the consumer that holds it before it is sent
     * again (see {@code SignalLeases}). Not journalled: made of the heartbeats this supervisor received since it
     * started.
     *
     * @param holder         the consumer holding the signal: the first heard busy on it since it was sent, with a
     *                       {@code progress}; null until then
     * @param progress       the highest progress the holder reported on it (units of work: objects read, events
     *                       written, events loaded)
     * @param lastProgressAt when the supervisor received the holder's last increase of {@code progress}; null: none
     * @param lastHeardAt    when the supervisor received the holder's last heartbeat on it; null: none
     * @param countsFrom     where the lease counts from: the latest of the send, the supervisor's start and the last
     *                       progress
     * @param expiresAt      {@code countsFrom} + {@code supervisor.signal.lease}: the signal is sent again then, unless
     *                       a report or more progress comes first
     */
    public record Lease(
            String holder,
            long progress,
            @JsonSerialize(using = ToStringSerializer.class) Instant lastProgressAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant lastHeardAt,
            @JsonSerialize(using = ToStringSerializer.class) Instant countsFrom,
            @JsonSerialize(using = ToStringSerializer.class) Instant expiresAt) {
    }

    /**
     * The last consumer report for the dataset's signal.
     *
     * @param permanent      FAILED only: the consumer found the failure permanent, so it is not retried
     *                       automatically
     * @param cause          FAILED only: the report's cause as the consumer sent it ({@code input},
     *                       {@code transient}, {@code internal}); null from older consumers
     * @param internalError  FAILED only: an internal error of the consumer (a bug, not a fault of the data): not
     *                       retried automatically, the objects are kept; {@code resignal} once the consumer is fixed
     * @param durationMillis the consumer's time on the signal, as it reported it: it started about this long before
     *                       {@code reportedAt}
     */
    public record ConsumerOutcome(
            String status,
            String consumer,
            String hdfsPath,
            long eventsWritten,
            long eventsLoaded,
            long duplicateEvents,
            int objectsRead,
            long bytesRead,
            String reason,
            boolean permanent,
            @JsonSerialize(using = ToStringSerializer.class) Instant reportedAt,
            long durationMillis,
            String cause,
            boolean internalError) {

        /** The outcome of {@code r}, null when there is no report. */
        static ConsumerOutcome of(ConsumerReport r, Instant reportedAt) {
            if (r == null) {
                return null;
            }
            return new ConsumerOutcome(r.status(), r.consumer(), r.hdfsPath(), r.eventsWritten(), r.eventsLoaded(),
                    r.duplicateEvents(), r.objectsRead(), r.bytesRead(), r.reason(), r.permanent(), reportedAt,
                    r.durationMillis(), r.cause(), r.internal() && ConsumerReport.FAILED.equals(r.status()));
        }
    }
}
