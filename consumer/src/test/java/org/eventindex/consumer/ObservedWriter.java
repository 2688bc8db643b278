package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A consolidated writer around another that either hides its {@link ConsolidatedWriter.SortedRuns} (so the
 * consolidator takes the event-by-event path: spools, then the writer's own external sort) or passes them through
 * while recording the run files of each object.
 */
final class ObservedWriter implements ConsolidatedWriter {
    private final ConsolidatedWriter w;
    private final boolean sortedRuns;
    /** Run files registered per object, in signal order. */
    final List<List<SortedRun>> runFiles = new ArrayList<>();

    private ObservedWriter(ConsolidatedWriter w, boolean sortedRuns) {
        this.w = w;
        this.sortedRuns = sortedRuns;
    }

    /** Events go one by one, as before the fetch threads sorted them. */
    static ObservedWriter oneByOne(ConsolidatedWriter w) {
        return new ObservedWriter(w, false);
    }

    static ObservedWriter recordingRuns(ConsolidatedWriter w) {
        return new ObservedWriter(w, true);
    }

    int runCount() {
        return runFiles.stream().mapToInt(List::size).sum();
    }

    @Override
    public SortedRuns sortedRuns() {
        SortedRuns inner = sortedRuns ? w.sortedRuns() : null;
        if (inner == null) {
            return null;
        }
        return new SortedRuns() {
            @Override
            public long sortMemoryBytes() {
                return inner.sortMemoryBytes();
            }

            @Override
            public Path runDir() {
                return inner.runDir();
            }

            @Override
            public RunMemory runMemory() {
                return inner.runMemory();
            }

            @Override
            public void objectRuns(ObjectRuns runs) throws IOException {
                runFiles.add(runs.files());
                inner.objectRuns(runs);
            }
        };
    }

    @Override
    public void header(Header_p1 header) throws IOException {
        w.header(header);
    }

    @Override
    public void object(String url) throws IOException {
        w.object(url);
    }

    @Override
    public void beginGuid(BeginGUID_p1 begin) throws IOException {
        w.beginGuid(begin);
    }

    @Override
    public void triggerMenu(TriggerMenu_p1 menu) throws IOException {
        w.triggerMenu(menu);
    }

    @Override
    public void event(EIEvent_p1 event) throws IOException {
        w.event(event);
    }

    @Override
    public void event(int run, long event, boolean simulation, byte[] serialized) throws IOException {
        w.event(run, event, simulation, serialized);
    }

    @Override
    public void endGuid(EndGUID_p1 end) throws IOException {
        w.endGuid(end);
    }

    @Override
    public void finish(long endProcTime) throws IOException {
        w.finish(endProcTime);
    }

    @Override
    public long events() {
        return w.events();
    }

    @Override
    public void close() throws IOException {
        w.close();
    }
}
