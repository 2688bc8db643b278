package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.ProducerInfo;

import java.util.List;
import java.util.Objects;

/**
 * One fact the supervisor recorded. The supervisor's whole state is a pure function of the sequence of these events
 * (see {@code SupervisorState#apply}); each is stored as one JSON line with a {@code "type"} discriminator.
 * New event types may be added; existing ones only gain optional fields, so old journals stay readable. Each type
 * declares the journal format version its lines need and whether a reader that does not know it may skip them
 * ({@link JournalFormat.Event}, decision 0055).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = JournalEvent.ObjectReported.class, name = "OBJECT_REPORTED"),
        @JsonSubTypes.Type(value = JournalEvent.ManifestRegistered.class, name = "MANIFEST_REGISTERED"),
        @JsonSubTypes.Type(value = JournalEvent.SignalPlanned.class, name = "SIGNAL_PLANNED"),
        @JsonSubTypes.Type(value = JournalEvent.SignalSent.class, name = "SIGNAL_SENT"),
        @JsonSubTypes.Type(value = JournalEvent.ReportReceived.class, name = "REPORT_RECEIVED"),
        @JsonSubTypes.Type(value = JournalEvent.ResignalRequested.class, name = "RESIGNAL_REQUESTED"),
        @JsonSubTypes.Type(value = JournalEvent.MessageRejected.class, name = "MESSAGE_REJECTED"),
        @JsonSubTypes.Type(value = JournalEvent.ObjectInvalidated.class, name = "OBJECT_INVALIDATED"),
        @JsonSubTypes.Type(value = JournalEvent.ObjectsDeleted.class, name = "OBJECTS_DELETED"),
        @JsonSubTypes.Type(value = JournalEvent.DatasetDeleted.class, name = "DATASET_DELETED"),
        @JsonSubTypes.Type(value = JournalEvent.RequestAnswered.class, name = "REQUEST_ANSWERED"),
        @JsonSubTypes.Type(value = JournalEvent.StateReconciled.class, name = "STATE_RECONCILED"),
})
public sealed interface JournalEvent {

    /**
     * A producer stored an object for a dataset (validated; the first message with this id).
     *
     * @param messageId the producer message's {@code id}, the idempotency key
     */
    @JournalFormat.Event(version = 1, ignorable = false)
    record ObjectReported(String messageId, ProducerInfo info) implements JournalEvent {
        public ObjectReported {
            Objects.requireNonNull(messageId, "messageId is null");
            Objects.requireNonNull(info, "info is null");
        }
    }

    /** The files a dataset must contain (replaces an earlier manifest of a dataset not yet signalled). */
    @JournalFormat.Event(version = 1, ignorable = false)
    record ManifestRegistered(DatasetManifest manifest) implements JournalEvent {
        public ManifestRegistered {
            Objects.requireNonNull(manifest, "manifest is null");
        }
    }

    /** A dataset is complete; this exact signal (dspid and epoch assigned) is to be sent, and re-sent unchanged. */
    @JournalFormat.Event(version = 1, ignorable = false)
    record SignalPlanned(ConsumerSignal signal) implements JournalEvent {
        public SignalPlanned {
            Objects.requireNonNull(signal, "signal is null");
        }
    }

    /** The broker acknowledged (receipt) the signal on the consumer queue. */
    @JournalFormat.Event(version = 1, ignorable = false)
    record SignalSent(String dataset, String signalId) implements JournalEvent {
        public SignalSent {
            Objects.requireNonNull(dataset, "dataset is null");
            Objects.requireNonNull(signalId, "signalId is null");
        }
    }

    /** A consumer reported the outcome of a signal (also recorded when the signal id is unknown). */
    @JournalFormat.Event(version = 1, ignorable = false)
    record ReportReceived(ConsumerReport report) implements JournalEvent {
        public ReportReceived {
            Objects.requireNonNull(report, "report is null");
        }
    }

    /**
     * The dataset's signal is to be sent again, unchanged.
     *
     * @param reason null when an operator asked; else why the supervisor did it (lease expired, retry after FAILED)
     */
    @JournalFormat.Event(version = 1, ignorable = false)
    record ResignalRequested(String dataset, String signalId, String reason) implements JournalEvent {
        public ResignalRequested {
            Objects.requireNonNull(dataset, "dataset is null");
            Objects.requireNonNull(signalId, "signalId is null");
        }

        /** Whether the supervisor decided it (lease, retry) rather than an operator. */
        public boolean automatic() {
            return reason != null;
        }
    }

    /**
     * An object must never be selected again (a consumer found it unreadable or inconsistent, or an operator said so).
     * If the dataset's signal names it, that signal is superseded and the dataset is selected again.
     *
     * @param source who said so: a consumer name or {@code operator}
     */
    @JournalFormat.Event(version = 1, ignorable = false)
    record ObjectInvalidated(String dataset, String url, String reason, String source) implements JournalEvent {
        public ObjectInvalidated {
            Objects.requireNonNull(dataset, "dataset is null");
            Objects.requireNonNull(url, "url is null");
            Objects.requireNonNull(reason, "reason is null");
        }
    }

    /** The cleanup deleted these objects of a DONE dataset from the object store. */
    @JournalFormat.Event(version = 1, ignorable = false)
    record ObjectsDeleted(String dataset, List<String> urls) implements JournalEvent {
        public ObjectsDeleted {
            Objects.requireNonNull(dataset, "dataset is null");
            urls = List.copyOf(urls);
        }
    }

    /**
     * An operator deleted the dataset everywhere: from now on it is only a tombstone (messages naming it are refused);
     * the objects it still has are deleted by the cleanup, which records them with {@link ObjectsDeleted}.
     *
     * @param reason     why, as the operator gave it (may be null)
     * @param stepsLeft  the steps the operator's command does after this one ({@code HDFS_FILE}, {@code KUDU_ROWS}),
     *                   each left until a later line names it in {@code stepsDone}; empty when the command said none
     *                   (journals before 0.2.0)
     * @param finishWith the command that finishes them (no login, no secret path); null with no steps
     * @param stepsDone  on a later line for a dataset already deleted: the steps the command reports done (they leave
     *                   the tombstone's steps left); empty on the line that deletes it. A reader before 0.2.0 ignores
     *                   such a line (the dataset is already deleted), so no new event type is needed
     */
    @JournalFormat.Event(version = 1, ignorable = false)
    record DatasetDeleted(String dataset, String reason, List<String> stepsLeft, String finishWith,
                          List<String> stepsDone) implements JournalEvent {
        public DatasetDeleted {
            Objects.requireNonNull(dataset, "dataset is null");
            stepsLeft = stepsLeft == null ? List.of() : List.copyOf(stepsLeft);
            stepsDone = stepsDone == null ? List.of() : List.copyOf(stepsDone);
        }

        /** A delete with no step of the command tracked. */
        public DatasetDeleted(String dataset, String reason) {
            this(dataset, reason, List.of(), null, List.of());
        }

        /** The operator's command reports {@code steps} of the delete of {@code dataset} done. */
        public static DatasetDeleted stepsDone(String dataset, List<String> steps) {
            return new DatasetDeleted(dataset, null, List.of(), null, steps);
        }
    }

    /**
     * An operator request (a control message with a {@code correlation-id}) was answered; a redelivery of it is
     * answered the same way without being applied again.
     *
     * @param outcome     {@code OK}, {@code BAD_REQUEST} or a refusal reason
     * @param reason      the refusal reason, null when OK
     * @param brokerLogin who sent it: the broker login the broker vouched for ({@code JMSXUserID}); null when none
     *                    (journals before 0.2.0, a broker without logins)
     * @param claimedUser the OS user the operator command said it ran as (not verified); null when none
     * @param httpUser    the authenticated HTTP user, for a request made over HTTP; null otherwise
     */
    @JournalFormat.Event(version = 1, ignorable = false)
    record RequestAnswered(String requestId, String outcome, String reason, String dataset, String detail,
                           String brokerLogin, String claimedUser, String httpUser) implements JournalEvent {
        public RequestAnswered {
            Objects.requireNonNull(requestId, "requestId is null");
            Objects.requireNonNull(outcome, "outcome is null");
            Objects.requireNonNull(detail, "detail is null");
        }

        /** An answer with nobody known as its sender. */
        public RequestAnswered(String requestId, String outcome, String reason, String dataset, String detail) {
            this(requestId, outcome, reason, dataset, detail, null, null, null);
        }
    }

    /**
     * A message was refused (and acknowledged, so it does not block its queue).
     *
     * @param queue     where it came from
     * @param messageId its JSON {@code id} if it had one, else the broker's message-id
     * @param reason    a {@code RejectReason} name
     * @param dataset   the dataset it named, if it could be read
     * @param body      the message body (truncated to a bounded size)
     */
    @JournalFormat.Event(version = 1, ignorable = true)
    record MessageRejected(String queue, String messageId, String reason, String detail, String dataset, String body)
            implements JournalEvent {
        public MessageRejected {
            Objects.requireNonNull(queue, "queue is null");
            Objects.requireNonNull(reason, "reason is null");
            Objects.requireNonNull(detail, "detail is null");
        }
    }

    /**
     * {@code supervisor rebuild-state} reconciled the journal with the sources of truth (bucket, HDFS, Kudu,
     * catalogue) and appended what they showed before this entry (decision 0054). From now on the cleanup may delete
     * an object no entry names only if it was in the bucket before {@code listedAt} and is not one of
     * {@code undecidedObjects}.
     *
     * @param listedAt         when the bucket listing started, epoch milliseconds
     * @param undecidedObjects keys of the objects the reconciliation could not decide (kept by the cleanup)
     * @param dspidFloor       the highest dspid found in Kudu: no new dataset is given it or a lower one
     * @param summary          what was done, one line
     */
    // Not ignorable: a reader that skipped it would forget the dspid floor and could give a new dataset a dspid that
    // Kudu already holds.
    @JournalFormat.Event(version = 1, ignorable = false)
    record StateReconciled(long listedAt, List<String> undecidedObjects, int dspidFloor, String summary)
            implements JournalEvent {
        public StateReconciled {
            undecidedObjects = undecidedObjects == null ? List.of() : List.copyOf(undecidedObjects);
            Objects.requireNonNull(summary, "summary is null");
        }
    }
}
