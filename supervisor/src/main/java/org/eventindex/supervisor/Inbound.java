package org.eventindex.supervisor;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.ProducerInfo;
import org.eventindex.names.DatasetName;

/**
 * A message after validation: one of the commands the supervisor acts on, or a rejection. The dataset name is parsed
 * here, once; the wire records ({@link ProducerInfo}, {@link DatasetManifest}...) are journalled as they came.
 */
sealed interface Inbound {

    /** A producer stored an object; {@code info} passed every check and names {@code dataset}. */
    record ObjectStored(String messageId, DatasetName dataset, ProducerInfo info) implements Inbound {
    }

    /** A manifest with a valid dataset name and at least one distinct, non-empty GUID (nevents -1 = unknown). */
    record Manifest(DatasetName dataset, DatasetManifest manifest) implements Inbound {
    }

    /** A consumer's report with a signal id and a DONE/FAILED status. */
    record Report(ConsumerReport report) implements Inbound {
    }

    /** A consumer's heartbeat: transient, never journalled (see {@link ConsumerHeartbeats}). */
    record Heartbeat(ConsumerHeartbeat heartbeat) implements Inbound {
    }

    /** An operator asks for a dataset's signal to be sent again. */
    record Resignal(DatasetName dataset) implements Inbound {
    }

    /** A consumer or an operator says an object must not be used (unreadable, inconsistent, wrong attempt). */
    record Invalidate(DatasetName dataset, InvalidateCommand command) implements Inbound {
    }

    /** An operator deletes a dataset everywhere (the supervisor's part: forget it, have its objects deleted). */
    record Delete(DatasetName dataset, DeleteCommand command) implements Inbound {
    }

    /** The message was refused. */
    record Rejected(Rejection rejection) implements Inbound {
    }
}
