package org.eventindex.consumer;

import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalObject;
import org.eventindex.message.SignalFile;
import org.eventindex.message.EventRange;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.spb.SpbLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.eventindex.consumer.TestSpb.range;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsolidatorTest {
    @TempDir
    Path spoolDir;

    private final MemoryObjectFetcher store = new MemoryObjectFetcher();
    private final ConsumerMetrics metrics = new ConsumerMetrics(new PrometheusRegistry());

    private Consolidator consolidator(int threads) {
        return new Consolidator(store, SpbLimits.DEFAULT, threads, 3, metrics);
    }

    private static SignalObject so(String key, long events, String... guids) {
        return new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, List.of(guids), events);
    }

    /** An object with the producer's claim per GUID. */
    private static SignalObject so(String key, long events, List<SignalFile> files) {
        return new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, 0,
                files.stream().map(SignalFile::guid).toList(), events, files);
    }

    private static ValidSignal signal(SignalObject... objects) throws ConsumeException {
        return signal(DATASET, objects);
    }

    private static ValidSignal signal(String dataset, SignalObject... objects) throws ConsumeException {
        long total = Stream.of(objects).mapToLong(SignalObject::expectedEvents).sum();
        return new SignalValidator("s3.test", 7480, "eventindex").validate(new ConsumerSignal(ConsumerSignal.TYPE,
                "sig-42", dataset, org.eventindex.names.DatasetName.parse(dataset).container(), 7, 1,
                List.of(objects), total, 1L));
    }

    /** The consolidated Parquet file, every sorted run written to {@link #spoolDir}. */
    private byte[] run(Consolidator c, ValidSignal s, long sortMemory, Consolidator.Result[] result) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ConsolidatedWriter w = new ParquetConsolidatedFormat(spoolDir, sortMemory, 2, 0).open(out)) {
            result[0] = c.consolidate(s, w);
        }
        return out.toByteArray();
    }

    private byte[] run(Consolidator c, ValidSignal s, Consolidator.Result[] result) throws Exception {
        return run(c, s, 1 << 20, result);
    }

    private void putStandardObjects() {
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10), Guid.of("G2", 200, 5)));
        store.put("b", TestSpb.object("b", 2000, Guid.of("G3", 300, 4), Guid.of("G4", 400, 3)));
        store.put("c", TestSpb.object("c", 3000, new Guid("G5", 500, 2, false, 1_700_000_000L)));
        store.put("d", TestSpb.object("d", 4000, Guid.of("G1", 100, 10)));
    }

    private List<Path> spoolFiles() throws IOException {
        try (Stream<Path> s = Files.list(spoolDir)) {
            return s.toList();
        }
    }

    @ParameterizedTest(name = "sort memory {0} bytes")
    @ValueSource(longs = {1024, 64L * 1024 * 1024})
    void writesSelectedGuidsInSignalOrderWhateverOrderFetchesFinish(long sortMemory) throws Exception {
        putStandardObjects();
        // c comes first in the signal but is served only after a and b were read completely.
        CountDownLatch others = new CountDownLatch(2);
        store.onFullyRead("a", others::countDown);
        store.onFullyRead("b", others::countDown);
        store.hook((url, n) -> {
            if (url.equals(MemoryObjectFetcher.url("c"))) {
                try {
                    if (!others.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("a and b were never read");
                    }
                } catch (InterruptedException e) {
                    throw new InterruptedIOException();
                }
            }
        });
        ValidSignal s = signal(so("c", 2, "G5"), so("a", 5, "G2"), so("b", 7, "G3", "G4"));
        Consolidator.Result[] result = new Consolidator.Result[1];

        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(3), s, sortMemory, result));

        assertEquals(List.of("G5", "G2", "G3", "G4"), file.guids(), "input files in signal order");
        assertEquals(List.of(MemoryObjectFetcher.url("c").toString(), MemoryObjectFetcher.url("a").toString(),
                MemoryObjectFetcher.url("b").toString()), file.metadata().objects());
        // rows sorted by (run, event), each with the file it came from
        List<Long> expected = new ArrayList<>(range(200, 5));
        expected.addAll(range(300, 4));
        expected.addAll(range(400, 3));
        expected.addAll(range(500, 2));
        assertEquals(expected, file.eventNumbers());
        assertEquals(List.of("G2", "G3", "G4", "G5"), file.rows().stream().map(r -> r.guid()).distinct().toList());
        ConsolidatedMetadata.HeaderInfo h = file.metadata().header();
        assertEquals(Consolidator.TASK_ID, h.taskID());
        assertEquals("sig-42", h.jobID());
        assertEquals(DATASET, file.metadata().dataset());
        assertEquals(3000, h.startProcTime());
        assertEquals(14, file.metadata().events());
        assertEquals(1_700_000_000L, file.metadata().endProcTime());
        assertEquals(new Consolidator.Result(14, 3, result[0].bytesRead(), 4), result[0]);
        assertTrue(result[0].bytesRead() > 0);
        assertEquals(0, store.opens("d"), "the object whose GUIDs are taken elsewhere is never opened");
        assertEquals(3, DaemonMetrics.value(metrics.registry(), ConsumerMetrics.OBJECTS_READ));
        assertEquals(List.of(), spoolFiles(), "run files are removed");
    }

    @Test
    void sameSelectionGivesTheSameBytes() throws Exception {
        putStandardObjects();
        ValidSignal s = signal(so("a", 15, "G1", "G2"), so("b", 4, "G3"));
        Consolidator.Result[] result = new Consolidator.Result[1];
        byte[] first = run(consolidator(2), s, 1024, result);
        byte[] second = run(consolidator(1), s, 1 << 20, result);
        assertTrue(java.util.Arrays.equals(first, second), "a redelivery must write identical content");
    }

    @Test
    void slidingWindowKeepsOrderOverManyObjectsWithOneThread() throws Exception {
        List<SignalObject> objects = new ArrayList<>();
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            store.put("o" + i, TestSpb.object("o" + i, 1000 + i, Guid.of("H" + i, i * 1000L, i + 1)));
            objects.add(so("o" + i, i + 1, "H" + i));
            expected.addAll(range(i * 1000L, i + 1));
        }
        Consolidator.Result[] result = new Consolidator.Result[1];
        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(1), signal(objects.toArray(SignalObject[]::new)),
                result));
        assertEquals(expected, file.eventNumbers());
        assertEquals(7, result[0].objectsRead());
    }

    @Test
    void eventCountMismatchFailsNamingTheObjectAndCounts() throws Exception {
        putStandardObjects();
        ValidSignal s = signal(so("a", 15, "G1", "G2"), so("b", 5, "G3"));
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(2), s,
                new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains("object " + MemoryObjectFetcher.url("b") + ": took 4 events of GUID(s) [G3]"
                + " but the signal expects 5"), e.getMessage());
        assertEquals(List.of(), spoolFiles());
    }

    @Test
    void aSelectedGuidMissingFromItsObjectFailsNamingIt() throws Exception {
        putStandardObjects();
        ValidSignal s = signal(so("a", 5, "G2", "G9"));
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(2), s,
                new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains("does not hold GUID(s) [G9]"), e.getMessage());
        assertTrue(e.getMessage().contains(MemoryObjectFetcher.url("a").toString()), e.getMessage());
    }

    @Test
    void aMissingObjectFailsAtOnceWithoutRetriesAndLeavesNoSpool() throws Exception {
        putStandardObjects();
        ValidSignal s = signal(so("a", 5, "G2"), so("gone", 1, "G7"), so("b", 4, "G3"));
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(3), s,
                new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains("object " + MemoryObjectFetcher.url("gone") + " does not exist"),
                e.getMessage());
        assertEquals(1, store.opens("gone"));
        assertEquals(List.of(), spoolFiles());
    }

    @Test
    void anObjectWhoseHeaderNamesAnotherJobThanItsKeyFailsAtOnceWithoutRetries() throws Exception {
        putStandardObjects();
        // Job b's file stored under job "forged"'s key (another task's key would be refused the same way).
        store.put("forged", TestSpb.object("b", 2000, Guid.of("G7", 700, 4)));
        ValidSignal s = signal(so("a", 5, "G2"), so("forged", 4, "G7"));
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(3), s,
                new Consolidator.Result[1]));
        assertTrue(e.getMessage().startsWith("object " + MemoryObjectFetcher.url("forged")), e.getMessage());
        assertTrue(e.getMessage().contains("header names taskID '" + TestSpb.TASK_ID + "' and jobID 'b'")
                && e.getMessage().contains("jobID 'forged'"), e.getMessage());
        assertEquals(1, store.opens("forged"), "a content error is not retried");
        assertEquals(List.of(), spoolFiles());
    }

    @Test
    void headerAndKeyCheck() {
        S3ObjectUrl own = MemoryObjectFetcher.url("j1");
        Header_p1 header = Header_p1.newBuilder().setStartProcTime(1).setTaskID(TestSpb.TASK_ID).setJobID("j1")
                .setInputDsName(DATASET).setProvenanceRef(true).setTriggerInfo(true).build();
        assertDoesNotThrow(() -> GuidSelector.checkHeaderMatchesKey(header, own));
        for (Header_p1 other : List.of(header.toBuilder().setJobID("j2").build(),
                header.toBuilder().setTaskID("12345679.X").build(), header.toBuilder().setTaskID("12345678.G").build())) {
            ConsumeException e = assertThrows(ConsumeException.class,
                    () -> GuidSelector.checkHeaderMatchesKey(other, own));
            assertTrue(e.getMessage().contains("taskID '" + other.getTaskID() + "' and jobID '" + other.getJobID()
                    + "'"), e.getMessage());
        }
        S3ObjectUrl plain = new S3ObjectUrl(own.host(), own.port(), own.bucket(), "X/12345678/j1.ei.spb");
        ConsumeException e = assertThrows(ConsumeException.class,
                () -> GuidSelector.checkHeaderMatchesKey(header, plain));
        assertTrue(e.getMessage().contains("is not stored under a producer key"), e.getMessage());
    }

    @Test
    void aStreamBrokenMidwayIsReadAgain() throws Exception {
        putStandardObjects();
        store.breakFirstReadAfter("a", 40);
        ValidSignal s = signal(so("a", 5, "G2"));
        Consolidator.Result[] result = new Consolidator.Result[1];
        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(1), s, result));
        assertEquals(range(200, 5), file.eventNumbers());
        assertEquals(2, store.opens("a"));
        assertTrue(result[0].bytesRead() > 40, "bytes of the failed attempt count too");
    }

    @Test
    void aStreamEndingBeforeTheAnnouncedSizeIsReadAgainNotRefusedAsMalformed() throws Exception {
        putStandardObjects();
        store.endFirstReadAfter("a", 40);
        ValidSignal s = signal(so("a", 5, "G2"));
        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(1), s, new Consolidator.Result[1]));
        assertEquals(range(200, 5), file.eventNumbers());
        assertEquals(2, store.opens("a"));
    }

    /**
     * The same wrong digest on a second read: the store holds another object than its producer recorded, which no
     * retry changes, so the failure is permanent (it used to be retried as transient, five signals at full cost).
     */
    @Test
    void aChecksumMismatchThatRepeatsIsPermanentNamingTheObjectAndBothDigests() throws Exception {
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10)));
        String wrong = "0".repeat(64);
        store.sha256("a", wrong);
        ConsumeException e = assertThrows(ConsumeException.class,
                () -> run(consolidator(1), signal(so("a", 10, "G1")), new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains(MemoryObjectFetcher.url("a").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("SHA-256") && e.getMessage().contains(wrong)
                && e.getMessage().contains("not the one its producer recorded"), e.getMessage());
        assertFalse(e.retriable(), "the same bytes read twice do not change");
        assertEquals(2, store.opens("a"), "read a second time to tell a broken transfer from another object");
        assertEquals(List.of(), spoolFiles());
    }

    /** A mismatch that a second read does not see was a fault of the transfer: the dataset is consolidated. */
    @Test
    void aChecksumMismatchThatASecondReadDoesNotSeeWasTheTransfer() throws Exception {
        byte[] object = TestSpb.object("a", 1000, Guid.of("G1", 100, 10));
        store.put("a", object);
        store.sha256("a", "0".repeat(64));
        store.hook((url, openNo) -> {
            if (openNo == 2) {
                store.put("a", object);
            }
        });
        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(1), signal(so("a", 10, "G1")),
                new Consolidator.Result[1]));
        assertEquals(range(100, 10), file.eventNumbers());
        assertEquals(2, store.opens("a"));
    }

    @Test
    void anObjectWhoseHeaderNamesAnotherDatasetIsRefusedBeforeAnythingIsWritten() throws Exception {
        String other = "data17_13TeV.00327637.physics_Main.merge.AOD.f838_m1824";
        store.put("a", TestSpb.object(other, "a", 1000, Guid.of("G1", 100, 10)));
        ConsumeException e = assertThrows(ConsumeException.class,
                () -> run(consolidator(1), signal(so("a", 10, "G1")), new Consolidator.Result[1]));
        assertFalse(e.retriable());
        assertTrue(e.getMessage().contains("its SPB header names dataset '" + other + "'")
                && e.getMessage().contains("the signal is for dataset " + DATASET), e.getMessage());
        assertEquals(List.of(), spoolFiles());
    }

    /**
     * Each selected GUID must hold what its producer reported (the signal's files): a count or a run range that
     * differs is an object other than the one the message described, refused on the first read (issue 30).
     */
    @Test
    void eachGuidMustHoldWhatItsProducerReported() throws Exception {
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10), Guid.of("G2", 200, 5)));
        Map<String, EventRange> g1 = Map.of("327636", new EventRange(100, 109));
        Map<String, EventRange> g2 = Map.of("327636", new EventRange(200, 204));
        // what the producer reported: loaded
        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(1), signal(so("a", 15, List.of(
                new SignalFile("G1", 10, g1), new SignalFile("G2", 5, g2)))), new Consolidator.Result[1]));
        assertEquals(15, file.rows().size());
        // a range that differs
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(1), signal(so("a", 15,
                List.of(new SignalFile("G1", 10, g1), new SignalFile("G2", 5,
                        Map.of("327636", new EventRange(200, 205)))))), new Consolidator.Result[1]));
        assertFalse(e.retriable());
        assertTrue(e.getMessage().contains("GUID G2 holds events {327636=[200, 204]}")
                && e.getMessage().contains("its producer reported {327636=[200, 205]}"), e.getMessage());
        // another run
        e = assertThrows(ConsumeException.class, () -> run(consolidator(1), signal(so("a", 15, List.of(
                new SignalFile("G1", 10, Map.of("327637", new EventRange(100, 109))), new SignalFile("G2", 5, g2)))),
                new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains("GUID G1 holds events {327636=[100, 109]}"), e.getMessage());
        // counts that differ per GUID but add up to the same total
        e = assertThrows(ConsumeException.class, () -> run(consolidator(1), signal(so("a", 15, List.of(
                new SignalFile("G1", 11, g1), new SignalFile("G2", 4, g2)))), new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains("GUID G1 holds 10 events, but its producer reported 11"), e.getMessage());
        assertEquals(List.of(), spoolFiles());
    }

    /** One run per dataset: two simulation objects of different conditions runs are refused before the merge. */
    @Test
    void objectsOfOneDatasetWithDifferentRunsAreRefused() throws Exception {
        String mc = "mc16_13TeV.361106.PowhegPythia8EvtGen_AZNLOCTEQ6L1_Zee.merge.AOD.e3601_s3126_r9364";
        store.put("a", TestSpb.object(mc, 284500, true, "a", 1000, Guid.of("G1", 1, 10)));
        store.put("b", TestSpb.object(mc, 300000, true, "b", 1000, Guid.of("G2", 1, 10)));
        store.put("c", TestSpb.object(mc, 284500, false, "c", 1000, Guid.of("G3", 100, 10)));
        store.put("d", TestSpb.object(mc, 284500, true, "d", 1000, Guid.of("G4", 100, 10)));
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(2),
                signal(mc, so("a", 10, "G1"), so("b", 10, "G2")), new Consolidator.Result[1]));
        assertFalse(e.retriable());
        assertTrue(e.getMessage().contains("holds events of run 300000") && e.getMessage().contains("run 284500")
                && e.getMessage().contains(MemoryObjectFetcher.url("a").toString()), e.getMessage());
        e = assertThrows(ConsumeException.class, () -> run(consolidator(2),
                signal(mc, so("a", 10, "G1"), so("c", 10, "G3")), new Consolidator.Result[1]));
        assertTrue(e.getMessage().contains("holds non-simulated events"), e.getMessage());
        assertEquals(List.of(), spoolFiles());
        // one run, all simulated: consolidated
        assertEquals(20, TestSpb.parquet(run(consolidator(2), signal(mc, so("a", 10, "G1"), so("d", 10, "G4")),
                new Consolidator.Result[1])).rows().size());
    }

    @Test
    void aMatchingChecksumAndNoChecksumBothPass() throws Exception {
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10)));
        store.put("b", TestSpb.object("b", 1000, Guid.of("G2", 200, 3)));
        store.sha256("b", null);
        TestSpb.Consolidated file = TestSpb.parquet(run(consolidator(2), signal(so("a", 10, "G1"),
                so("b", 3, "G2")), new Consolidator.Result[1]));
        assertEquals(13, file.eventNumbers().size());
        assertEquals(1, store.opens("a"));
    }

    @Test
    void aMalformedObjectFailsWithoutRetryNamingIt() throws Exception {
        byte[] good = TestSpb.object("cut", 1000, Guid.of("G1", 100, 10));
        byte[] bad = java.util.Arrays.copyOf(good, good.length - 12);
        store.put("cut", bad);
        ValidSignal s = signal(so("cut", 10, "G1"));
        ConsumeException e = assertThrows(ConsumeException.class, () -> run(consolidator(1), s,
                new Consolidator.Result[1]));
        assertTrue(e.getMessage().startsWith(MemoryObjectFetcher.url("cut").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("malformed SPB"), e.getMessage());
        assertEquals(1, store.opens("cut"));
    }
}
