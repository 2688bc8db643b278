package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.ProducerInfo;

/**
 * What the file holds, for people ({@code -v}: one line per input file GUID, then the totals) and for wrappers
 * ({@code --json}: the {@code summary} object).
 */
final class RunSummary {
    private RunSummary() {
    }

    /** Per GUID: events and unique events; totals; bytes per event. */
    static void print(PrintStream out, UploadPlan plan) {
        requireNonNull(out, "out is null");
        ProducerInfo info = plan.info();
        for (GuidInfo g : info.guids()) {
            out.printf(Locale.ROOT, "  GUID %s: %d events, %d unique%n", g.guid(), g.nevents(), g.nuevents());
        }
        out.printf(Locale.ROOT, "  total: %d events, %d unique, %d input files, %d bytes, %.1f bytes/event%n",
                info.nevents(), info.nuevents(), info.nfiles(), plan.file().size(), bytesPerEvent(plan));
    }

    /** The same as a JSON-ready map. */
    static Map<String, Object> json(UploadPlan plan) {
        ProducerInfo info = plan.info();
        List<Map<String, Object>> guids = new ArrayList<>();
        for (GuidInfo g : info.guids()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("guid", g.guid());
            m.put("nevents", g.nevents());
            m.put("nuevents", g.nuevents());
            guids.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("nevents", info.nevents());
        out.put("nuevents", info.nuevents());
        out.put("nfiles", info.nfiles());
        out.put("bytes", plan.file().size());
        out.put("bytesPerEvent", Math.round(bytesPerEvent(plan) * 10) / 10.0);
        out.put("guids", guids);
        return out;
    }

    private static double bytesPerEvent(UploadPlan plan) {
        long events = plan.info().nevents();
        return events == 0 ? 0 : (double) plan.file().size() / events;
    }
}
