package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.ProducerInfo;

/** A message after validation: one of the commands the supervisor acts on, or a rejection. */
sealed interface Inbound {

    /** A producer stored an object; {@code info} passed every check. */
    record ObjectStored(String messageId, ProducerInfo info) implements Inbound {
    }

    /** A manifest with a valid dataset name and at least one distinct, non-empty GUID (nevents -1 = unknown). */
    record Manifest(DatasetManifest manifest) implements Inbound {
    }

    /** A consumer's report with a signal id and a DONE/FAILED status. */
    record Report(ConsumerReport report) implements Inbound {
    }

    /** An operator asks for a dataset's signal to be sent again. */
    record Resignal(String dataset) implements Inbound {
    }

    /** A consumer or an operator says an object must not be used (unreadable, inconsistent, wrong attempt). */
    record Invalidate(InvalidateCommand command) implements Inbound {
    }

    /** The message was refused. */
    record Rejected(Rejection rejection) implements Inbound {
    }
}
