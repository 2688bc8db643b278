package org.eventindex.consumer;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.eventindex.spb.SpbLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hand-off of merged rows to the overlapping Kudu load (decision 0073): the records the load gets are those it
 * would read back from the file, the footer it gets first is the file's, and the ends of the hand-off (the file
 * complete, the file failed, the load gone) reach the other side.
 */
class LoadFeedTest {
    @TempDir
    Path spool;

    private final MemoryObjectFetcher store = new MemoryObjectFetcher();

    @Test
    void theLoadGetsTheRowsAndFooterItWouldReadBackFromTheFile() throws Exception {
        // event numbers in two files (duplicates), three files in two objects, more rows than a batch
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 1, 700), Guid.of("G2", 650, 400)));
        store.put("b", TestSpb.object("b", 2000, Guid.of("G3", 5, 300)));
        ValidSignal signal = new SignalValidator("s3.test", 7480, "eventindex").validate(new ConsumerSignal(
                ConsumerSignal.TYPE, "sig-feed", DATASET, CONTAINER, 7, 1, List.of(
                new SignalObject(MemoryObjectFetcher.url("a").toString(), 100, List.of("G1", "G2"), 1100),
                new SignalObject(MemoryObjectFetcher.url("b").toString(), 100, List.of("G3"), 300)), 1400, 1L));
        List<EventRecord> handed = new ArrayList<>();
        ConsolidatedMetadata[] begun = new ConsolidatedMetadata[1];
        MergedRows tap = new MergedRows() {
            @Override
            public void begin(ConsolidatedMetadata footer) {
                begun[0] = footer;
            }

            @Override
            public void rows(List<MergePipeline.Row> rows, IntFunction<String> guidName) {
                for (MergePipeline.Row r : rows) {
                    String guid = guidName.apply(r.guid);
                    handed.add(LoadFeed.record(r.event, guid, guid.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                }
            }
        };
        // a spool folder not made yet, as a consumer's is until a run first spills
        ParquetConsolidatedFormat format = new ParquetConsolidatedFormat(spool.resolve("not-made-yet"), 1 << 20, 2,
                8 << 20);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ConsolidatedWriter w = format.open(out, tap)) {
            new Consolidator(store, SpbLimits.DEFAULT, 2, 1, new ConsumerMetrics(new PrometheusRegistry()))
                    .consolidate(signal, w);
        }
        assertEquals(0, format.runMemoryInUse(), "the runs in memory were spilled before the merge");

        TestSpb.Consolidated file = TestSpb.parquet(out.toByteArray());
        assertEquals(1400, handed.size());
        assertEquals(file.rows().size(), handed.size());
        for (int i = 0; i < handed.size(); i++) {
            ConsolidatedFileReader.Row row = file.rows().get(i);
            assertEquals(row.event(), handed.get(i).toEvent(), "row " + i);
            assertEquals(row.guid(), handed.get(i).guid, "row " + i);
        }
        ConsolidatedMetadata m = file.metadata();
        assertEquals(m.runs(), begun[0].runs());
        assertEquals(m.files(), begun[0].files());
        assertEquals(m.menus(), begun[0].menus());
        assertEquals(m.events(), begun[0].events());
        assertEquals(m.simulation(), begun[0].simulation());
        assertEquals(1, begun[0].runs().size());
    }

    @Test
    void theEndReachesTheLoadOnlyWhenTheFileIsComplete() throws Exception {
        LoadFeed feed = new LoadFeed(DATASET, "hdfs:/f.parquet");
        feed.begin(footer());
        feed.rows(List.of(), i -> "G");
        feed.complete();
        assertNull(feed.next(), "no rows, then the end");
        assertNull(feed.next());
        assertTrue(feed.singleRun() && !feed.simulation());
    }

    @Test
    void aFailedFileFailsTheLoadNamingItAndWhy() {
        LoadFeed feed = new LoadFeed(DATASET, "hdfs:/f.parquet");
        IllegalStateException cause = new IllegalStateException("DataNode gone");
        feed.fail(cause);
        IOException before = assertThrows(IOException.class, feed::awaitBegin);
        assertTrue(before.getMessage().contains("hdfs:/f.parquet") && before.getMessage().contains("DataNode gone"),
                before.getMessage());
        IOException next = assertThrows(IOException.class, feed::next);
        assertSame(cause, next.getCause());
        assertThrows(IOException.class, feed::next, "every later call fails too");
    }

    @Test
    void aFailedLoadStopsTheMergeAndALoadThatNeedsNoRowsLetsItGoOn() throws Exception {
        LoadFeed failed = new LoadFeed(DATASET, "f");
        failed.loadStopped(new IOException("Kudu refused"));
        IOException e = assertThrows(IOException.class, () -> fill(failed, LoadFeed.BATCHES + 1));
        assertTrue(e.getMessage().contains("Kudu refused"), e.getMessage());

        LoadFeed alreadyLoaded = new LoadFeed(DATASET, "f");
        alreadyLoaded.close();
        // more batches than the queue holds: none blocks, since no one takes them
        fill(alreadyLoaded, LoadFeed.BATCHES + 3);
        alreadyLoaded.complete();
    }

    /** {@code batches} empty batches handed over. */
    private static void fill(LoadFeed feed, int batches) throws IOException {
        for (int i = 0; i < batches; i++) {
            feed.rows(List.of(), g -> "G");
        }
    }

    private static ConsolidatedMetadata footer() {
        return new ConsolidatedMetadata(DATASET, "sig", new ConsolidatedMetadata.HeaderInfo(0, "t", "j", false, true),
                List.of(), List.of(), List.of(), 0, List.of(327_636L), 0, 0, "");
    }
}
