package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;
import org.eventindex.names.ObjectKey;
import org.eventindex.names.Printable;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.spb.SpbReader;
import org.eventindex.spb.SpbRecord;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * Streams one object's SPB records, checks that its Header names the task and job of the object's key, and keeps,
 * in file order, the records of the GUIDs the signal selected from it (BeginGUID, TriggerMenu, events, EndGUID);
 * other GUIDs are skipped. Then checks that every selected GUID was there exactly once and that the events taken
 * are the number the signal expects. The whole stream is read, so the reader's structure, count and gzip checks
 * cover the object end to end.
 */
final class GuidSelector {

    private GuidSelector() {
    }

    /**
     * What was taken from one object.
     *
     * @param header         the object's Header
     * @param events         events taken
     * @param maxEndProcTime largest EndGUID endProcTime among the GUIDs taken
     * @param guids          GUIDs taken, in file order
     */
    record Selection(Header_p1 header, long events, long maxEndProcTime, List<String> guids) {
        Selection {
            guids = List.copyOf(guids);
        }
    }

    /**
     * @param reader positioned at the start of the object
     * @param sink   receives the selected records in file order
     * @throws ConsumeException naming the object when a selected GUID is missing or repeated, or the count differs
     * @throws IOException      when reading fails ({@link org.eventindex.spb.SpbFormatException} for bad content)
     */
    static Selection select(SpbReader reader, SelectedObject object, SelectedRecords sink) throws IOException, ConsumeException {
        String source = object.url().toString();
        Header_p1 header = null;
        Set<String> seen = new HashSet<>();
        List<String> taken = new ArrayList<>();
        boolean taking = false;
        long events = 0;
        long maxEnd = 0;
        SpbRecord r;
        while ((r = reader.next()) != null) {
            if (r instanceof SpbRecord.Header h) {
                header = h.message();
                checkHeaderMatchesKey(header, object.url());
            } else if (r instanceof SpbRecord.BeginGuid b) {
                String guid = b.message().getGuid();
                taking = object.guids().contains(guid);
                if (!seen.add(guid) && taking) {
                    throw new ConsumeException(FATAL, "object " + source + " holds GUID " + guid
                            + " more than once (second at uncompressed offset " + b.offset() + ")");
                }
                if (taking) {
                    taken.add(guid);
                    sink.append(r);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException("reading " + source + " was interrupted");
                }
            } else if (r instanceof SpbRecord.Event || r instanceof SpbRecord.RawEvent) {
                if (taking) {
                    events++;
                    sink.append(r);
                }
            } else if (r instanceof SpbRecord.EndGuid e) {
                if (taking) {
                    maxEnd = Math.max(maxEnd, e.message().getEndProcTime());
                    sink.append(r);
                }
                taking = false;
            } else if (r instanceof SpbRecord.TriggerMenu) {
                if (taking) {
                    sink.append(r);
                }
            }
            // Trailer: the reader has checked its counts; nothing to keep.
        }
        if (header == null) {
            throw new ConsumeException(FATAL, "object " + source + " has no Header");
        }
        Set<String> missing = new TreeSet<>(object.guids());
        missing.removeAll(taken);
        if (!missing.isEmpty()) {
            throw new ConsumeException(FATAL, "object " + source + " does not hold GUID(s) " + missing
                    + " that the signal selects from it");
        }
        if (events != object.expectedEvents()) {
            throw new ConsumeException(FATAL, "object " + source + ": took " + events + " events of GUID(s) "
                    + taken + " but the signal expects " + object.expectedEvents());
        }
        return new Selection(header, events, maxEnd, taken);
    }

    /**
     * The object's key must be a producer key ({@link ObjectKey}) whose taskID and jobID are those of the object's
     * SPB header: an object written by one job under another job's key (a forged or misrouted upload) is refused
     * before any of its events is taken.
     *
     * @throws ConsumeException naming the object, the header's taskID/jobID and the key's
     */
    static void checkHeaderMatchesKey(Header_p1 header, S3ObjectUrl url) throws ConsumeException {
        ObjectKey key;
        try {
            key = ObjectKey.parse(url.key());
        } catch (IllegalArgumentException e) {
            throw new ConsumeException(FATAL, "object " + url + " is not stored under a producer key, so its header"
                    + " cannot be checked against it: " + e.getMessage());
        }
        if (!key.taskID().equals(header.getTaskID()) || !key.jobID().equals(header.getJobID())) {
            throw new ConsumeException(FATAL, "object " + url + ": its SPB header names taskID '"
                    + Printable.of(header.getTaskID(), 100) + "' and jobID '" + Printable.of(header.getJobID(), 100)
                    + "', but its key is that of taskID '" + key.taskID() + "' and jobID '" + key.jobID()
                    + "'; an object stored under another job's key is refused");
        }
    }
}
