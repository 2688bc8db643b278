package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A consolidated writer around another that records the sorted runs of each object it passes through. */
final class ObservedWriter implements ConsolidatedWriter {
    private final ConsolidatedWriter w;
    /** Runs registered per object (the merge's inputs: a chain of chunks is one), in signal order. */
    final List<List<SortedRun>> runFiles = new ArrayList<>();

    private ObservedWriter(ConsolidatedWriter w) {
        this.w = w;
    }

    static ObservedWriter recordingRuns(ConsolidatedWriter w) {
        return new ObservedWriter(w);
    }

    int runCount() {
        return runFiles.stream().mapToInt(List::size).sum();
    }

    /** The runs the fetch threads wrote (the chunks of each chain taken one by one), in signal order. */
    List<SortedRun> chunks() {
        List<SortedRun> all = new ArrayList<>();
        for (List<SortedRun> runs : runFiles) {
            for (SortedRun r : runs) {
                all.addAll(r instanceof SortedRun.Chain c ? c.parts() : List.of(r));
            }
        }
        return all;
    }

    @Override
    public SortedRuns sortedRuns() {
        SortedRuns inner = w.sortedRuns();
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
