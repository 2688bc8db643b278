package org.eventindex.spb;

import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Everything a producer reports about one SPB file, computed by streaming it once through {@link SpbReader}
 * (so it is also the file's validation).
 *
 * @param compressedBytes   gzip bytes read (the object size)
 * @param uncompressedBytes bytes of the SPB stream after gunzip
 * @param nevents           events in the file
 * @param nuevents          sum over GUIDs of the events unique by (run, event) within that GUID
 * @param guids             one entry per input file, in file order, with fileno 0, 1, ...
 */
public record SpbSummary(
        String taskID, String jobID, String inputDsName, long startProcTime, long endProcTime,
        long compressedBytes, long uncompressedBytes, long nevents, long nuevents, List<GuidInfo> guids) {

    public SpbSummary {
        guids = List.copyOf(requireNonNull(guids, "guids is null"));
    }

    /** Reads and validates the whole file; throws {@link SpbFormatException} if it is malformed. */
    public static SpbSummary scan(Path file, SpbLimits limits) throws IOException {
        return scan(file, limits, Inflation.INLINE);
    }

    /**
     * Reads and validates the whole file, inflating it as {@code inflation} says; throws {@link SpbFormatException}
     * if it is malformed.
     */
    public static SpbSummary scan(Path file, SpbLimits limits, Inflation inflation) throws IOException {
        requireNonNull(file, "file is null");
        try (InputStream in = Files.newInputStream(file)) {
            return scan(in, file.toString(), limits, inflation);
        }
    }

    /** Reads and validates the whole stream; the stream is closed. Events are read in place, not parsed. */
    public static SpbSummary scan(InputStream gzipped, String source, SpbLimits limits) throws IOException {
        return scan(gzipped, source, limits, Inflation.INLINE);
    }

    /** Reads and validates the whole stream, inflating it as {@code inflation} says; the stream is closed. */
    public static SpbSummary scan(InputStream gzipped, String source, SpbLimits limits, Inflation inflation)
            throws IOException {
        try (SpbReader reader = new SpbReader(gzipped, source, limits, inflation).rawEvents()) {
            return scan(reader);
        }
    }

    /** Reads the rest of an open reader (which must be at its start). */
    public static SpbSummary scan(SpbReader reader) throws IOException {
        requireNonNull(reader, "reader is null");
        String taskID = null;
        String jobID = null;
        String inputDsName = null;
        long startProcTime = 0;
        long endProcTime = 0;
        long nevents = 0;
        long nuevents = 0;
        List<GuidInfo> guids = new ArrayList<>();
        GuidStats current = null;
        for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
            if (r instanceof SpbRecord.RawEvent e) {
                current.add(e.event().runNumber, e.event().eventNumber);
            } else if (r instanceof SpbRecord.Event e) {
                current.add(e.message().getRunNumber(), e.message().getEventNumber());
            } else if (r instanceof SpbRecord.Header h) {
                taskID = h.message().getTaskID();
                jobID = h.message().getJobID();
                inputDsName = h.message().getInputDsName();
                startProcTime = h.message().getStartProcTime();
            } else if (r instanceof SpbRecord.BeginGuid b) {
                current = new GuidStats(b.message(), guids.size());
            } else if (r instanceof SpbRecord.EndGuid end) {
                GuidInfo info = current.finish(end.message().getEndProcTime());
                guids.add(info);
                nevents += info.nevents();
                nuevents += info.nuevents();
                current = null;
            } else if (r instanceof SpbRecord.Trailer t) {
                endProcTime = t.message().getEndProcTime();
            }
            // TriggerMenu records carry nothing the producer reports.
        }
        return new SpbSummary(taskID, jobID, inputDsName, startProcTime, endProcTime, reader.compressedBytes(),
                reader.uncompressedBytes(), nevents, nuevents, guids);
    }

    /** Per-GUID accumulation; the reader guarantees the Begin/Event/End order, so no null checks are needed. */
    private static final class GuidStats {
        private final BeginGUID_p1 begin;
        private final int fileno;
        // Per run: the distinct event numbers and [min, max]. A GUID almost always holds one run, so the last
        // run's entry is cached to skip the map lookup per event.
        private final Map<Integer, RunStats> runs = new TreeMap<>(Integer::compareUnsigned);
        private int lastRun;
        private RunStats last;
        private long nevents;

        GuidStats(BeginGUID_p1 begin, int fileno) {
            this.begin = begin;
            this.fileno = fileno;
        }

        void add(int run, long eventNumber) {
            nevents++;
            if (last == null || run != lastRun) {
                last = runs.computeIfAbsent(run, k -> new RunStats());
                lastRun = run;
            }
            last.add(eventNumber);
        }

        GuidInfo finish(long endProcTime) {
            Map<String, EventRange> ranges = new LinkedHashMap<>();
            long unique = 0;
            for (Map.Entry<Integer, RunStats> e : runs.entrySet()) {
                RunStats s = e.getValue();
                unique += s.events.size();
                ranges.put(Integer.toUnsignedString(e.getKey()), new EventRange(s.min, s.max));
            }
            return new GuidInfo(begin.getGuid(), fileno, nevents, unique, begin.getStartProcTime(), endProcTime,
                    begin.getAMITag(), begin.getTrigStream(), begin.getProjName(),
                    Collections.unmodifiableMap(ranges));
        }
    }

    private static final class RunStats {
        final DistinctEventNumbers events = new DistinctEventNumbers();
        // Event numbers are uint64: unsigned order, so that 2^63 and above sort after the rest.
        long min = -1L; // 2^64 - 1, the largest uint64
        long max = 0;

        void add(long eventNumber) {
            events.add(eventNumber);
            if (Long.compareUnsigned(eventNumber, min) < 0) {
                min = eventNumber;
            }
            if (Long.compareUnsigned(eventNumber, max) > 0) {
                max = eventNumber;
            }
        }
    }
}
