package org.eventindex.consumer;

import org.eventindex.message.EventRange;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalFile;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * Streams one object's SPB records, checks that its Header names the dataset of the signal and the task and job of
 * the object's key, and keeps, in file order, the records of the GUIDs the signal selected from it (BeginGUID,
 * TriggerMenu, events, EndGUID); other GUIDs are skipped. Each selected GUID must hold what its producer reported of
 * it (the signal's {@link SignalFile}: its event count and, per run, its smallest and largest event number), and the
 * events taken must be the number the signal expects. The whole stream is read, so the reader's structure, count,
 * gzip and content checks ({@link org.eventindex.spb.ContentRules}, the producer's own) cover the object end to end,
 * on the fetch thread, before anything of the dataset is written.
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
     * @param run            the run (unsigned) of the object's events, -1 when it has none
     * @param simulation     whether its events are simulated; null when it has none
     */
    record Selection(Header_p1 header, long events, long maxEndProcTime, List<String> guids, long run,
                     Boolean simulation) {
        Selection {
            guids = List.copyOf(guids);
        }
    }

    /**
     * @param reader  positioned at the start of the object
     * @param dataset the signal's dataset, which the object's Header must name
     * @param sink    receives the selected records in file order
     * @throws ConsumeException naming the object when it names another dataset or job, a selected GUID is missing
     *                          or repeated, or holds other events than its producer reported
     * @throws IOException      when reading fails ({@link org.eventindex.spb.SpbFormatException} for bad content)
     */
    static Selection select(SpbReader reader, SelectedObject object, String dataset, SelectedRecords sink)
            throws IOException, ConsumeException {
        String source = object.url().toString();
        Header_p1 header = null;
        Set<String> seen = new HashSet<>();
        List<String> taken = new ArrayList<>();
        boolean taking = false;
        long events = 0;
        long maxEnd = 0;
        FileStats file = new FileStats();
        SpbRecord r;
        while ((r = reader.next()) != null) {
            if (r instanceof SpbRecord.Header h) {
                header = h.message();
                checkHeaderMatchesKey(header, object.url());
                if (!header.getInputDsName().equals(dataset)) {
                    throw new ConsumeException(FATAL, "object " + source + ": its SPB header names dataset '"
                            + Printable.of(header.getInputDsName(), 300) + "', but the signal is for dataset "
                            + dataset + "; an object of another dataset is refused");
                }
            } else if (r instanceof SpbRecord.BeginGuid b) {
                String guid = b.message().getGuid();
                taking = object.guids().contains(guid);
                if (!seen.add(guid) && taking) {
                    throw new ConsumeException(FATAL, "object " + source + " holds GUID " + guid
                            + " more than once (second at uncompressed offset " + b.offset() + ")");
                }
                if (taking) {
                    taken.add(guid);
                    file.clear();
                    sink.append(r);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException("reading " + source + " was interrupted");
                }
            } else if (r instanceof SpbRecord.RawEvent e) {
                if (taking) {
                    events++;
                    file.add(e.event().runNumber, e.event().eventNumber);
                    sink.append(r);
                }
            } else if (r instanceof SpbRecord.Event e) {
                if (taking) {
                    events++;
                    file.add(e.message().getRunNumber(), e.message().getEventNumber());
                    sink.append(r);
                }
            } else if (r instanceof SpbRecord.EndGuid e) {
                if (taking) {
                    maxEnd = Math.max(maxEnd, e.message().getEndProcTime());
                    String guid = taken.get(taken.size() - 1);
                    file.check(source, guid, object.files().get(guid));
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
        return new Selection(header, events, maxEnd, taken, reader.content().run(), reader.content().simulation());
    }

    /** The events of one selected input file, per run: count, smallest and largest event number (unsigned). */
    private static final class FileStats {
        private final Map<Long, long[]> runs = new TreeMap<>();
        private long events;
        private int lastRun;
        private long[] last;

        void clear() {
            runs.clear();
            events = 0;
            last = null;
        }

        void add(int run, long event) {
            events++;
            if (last == null || run != lastRun) {
                last = runs.computeIfAbsent(Integer.toUnsignedLong(run), k -> new long[]{-1L, 0L});
                lastRun = run;
            }
            if (Long.compareUnsigned(event, last[0]) < 0) {
                last[0] = event;
            }
            if (Long.compareUnsigned(event, last[1]) > 0) {
                last[1] = event;
            }
        }

        /**
         * Compares the file with what its producer reported ({@code claim}, null when the signal does not say): the
         * same number of events and, when the producer gave run ranges, the same runs with the same ranges.
         */
        void check(String source, String guid, SignalFile claim) throws ConsumeException {
            if (claim == null) {
                return;
            }
            if (events != claim.nevents()) {
                throw new ConsumeException(FATAL, "object " + source + ": GUID " + guid + " holds " + events
                        + " events, but its producer reported " + claim.nevents() + "; the object is not the one its"
                        + " message described");
            }
            Map<String, EventRange> reported = claim.runevtRanges();
            if (reported == null || reported.isEmpty()) {
                return;
            }
            Map<Long, EventRange> claimed = new TreeMap<>();
            for (Map.Entry<String, EventRange> e : reported.entrySet()) {
                claimed.put(Long.parseLong(e.getKey()), e.getValue());
            }
            Map<Long, EventRange> held = new TreeMap<>();
            for (Map.Entry<Long, long[]> e : runs.entrySet()) {
                held.put(e.getKey(), new EventRange(e.getValue()[0], e.getValue()[1]));
            }
            if (!held.equals(claimed)) {
                throw new ConsumeException(FATAL, "object " + source + ": GUID " + guid + " holds events "
                        + held + " (run: [smallest, largest]), but its producer reported " + claimed + "; the"
                        + " object is not the one its message described");
            }
        }
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
