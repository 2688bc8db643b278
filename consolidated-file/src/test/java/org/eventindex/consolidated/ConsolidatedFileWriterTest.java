package org.eventindex.consolidated;

import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.eventindex.spb.EventScan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsolidatedFileWriterTest {
    private static final int EVENTS = 40_000;

    /**
     * Batches encoded on two threads give the file that single rows on one thread give, over many row groups (512 KiB
     * each here); it reads back row for row with a matching checksum.
     */
    @Test
    void batchesOnTwoThreadsWriteTheSameBytesAsRowsOnOne(@TempDir Path dir) throws IOException {
        List<EIEvent_p1> events = new ArrayList<>();
        Random random = new Random(17);
        for (int i = 0; i < EVENTS; i++) {
            events.add(event(i, random));
        }
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        ConsolidatedFileWriter one = new ConsolidatedFileWriter(rows, false, 1 << 19);
        for (int i = 0; i < EVENTS; i++) {
            one.write(events.get(i), guid(i % 7));
        }
        one.finish(EventRecordTest.metadata(EVENTS, one.finishDigest()).toKeyValues());

        ByteArrayOutputStream batches = new ByteArrayOutputStream();
        ConsolidatedFileWriter two = new ConsolidatedFileWriter(batches, true, 1 << 19);
        int batch = 300;
        StageRefs.Resolver resolver = new StageRefs.Resolver();
        for (int start = 0; start < EVENTS; start += batch) {
            int n = Math.min(batch, EVENTS - start);
            // new arrays for each batch: the writer may still read the last one during the next call
            EventScan[] scans = new EventScan[n];
            StageRefs[] refs = new StageRefs[n];
            String[] guids = new String[n];
            for (int i = 0; i < n; i++) {
                byte[] b = events.get(start + i).toByteArray();
                scans[i] = new EventScan();
                assertTrue(scans[i].scan(b, 0, b.length));
                guids[i] = guid((start + i) % 7);
                refs[i] = resolver.resolve(scans[i], guids[i], new StageRefs());
            }
            two.write(new ConsolidatedFileWriter.RowBatch() {
                @Override
                public int size() {
                    return n;
                }

                @Override
                public EventScan event(int i) {
                    return scans[i];
                }

                @Override
                public String guid(int i) {
                    return guids[i];
                }

                @Override
                public StageRefs refs(int i) {
                    return refs[i];
                }
            });
        }
        two.finish(EventRecordTest.metadata(EVENTS, two.finishDigest()).toKeyValues());
        assertArrayEquals(rows.toByteArray(), batches.toByteArray());

        Path file = dir.resolve("two.parquet");
        Files.write(file, batches.toByteArray());
        try (ParquetFileReader footer = ParquetFileReader.open(new LocalInputFile(file))) {
            assertTrue(footer.getRowGroups().size() > 5, footer.getRowGroups().size() + " row groups");
        }
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(new LocalInputFile(file), file.toString())) {
            for (int i = 0; i < EVENTS; i++) {
                ConsolidatedFileReader.Row r = reader.next();
                assertEquals(events.get(i), r.event(), "row " + i);
                assertEquals(guid(i % 7), r.guid());
            }
            assertNull(reader.next());
        }
    }

    /** Simulated events may carry a NaN or infinite weight: they are written and read back like any other. */
    @Test
    void nanAndInfiniteWeightsAreKept(@TempDir Path dir) throws IOException {
        float[] weights = {Float.NaN, Float.intBitsToFloat(0x7fc00001), Float.POSITIVE_INFINITY, -0.0f, 1.5f,
                Float.NEGATIVE_INFINITY};
        List<EIEvent_p1> events = new ArrayList<>();
        Random random = new Random(3);
        for (int i = 0; i < 3_000; i++) {
            events.add(event(i, random).toBuilder().setIsSimulation(true).setMcChannelNumber(410000)
                    .setMcEventWeight(weights[i % weights.length]).build());
        }
        Path file = dir.resolve("mc.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out, true, 1 << 16);
            for (int i = 0; i < events.size(); i++) {
                w.write(events.get(i), guid(i % 7));
            }
            w.finish(EventRecordTest.metadata(events.size(), w.finishDigest()).toKeyValues());
        }
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(new LocalInputFile(file), file.toString())) {
            for (int i = 0; i < events.size(); i++) {
                ConsolidatedFileReader.Row r = reader.next();
                assertEquals(Float.floatToRawIntBits(events.get(i).getMcEventWeight()),
                        Float.floatToRawIntBits(r.event().getMcEventWeight()), "weight of row " + i);
                assertEquals(events.get(i), r.event(), "row " + i);
            }
            assertNull(reader.next());
        }
    }

    /**
     * An HDFS stream that failed throws the same stored exception on every later call; the writer's error must still
     * name that cause (not "Self-suppression not permitted" from Parquet's try-with-resources), whether the row
     * group is written on the calling thread (one thread, one large row group written at the end) or on the
     * writer's flusher thread while the next is encoded (two threads, 64 KiB row groups, failing mid-file).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStreamRethrowingOneStoredExceptionReportsItsCause(boolean twoThreads) throws IOException {
        IOException stored = new IOException("DataNode refused the block: disk full");
        OutputStream failing = new OutputStream() {
            private long written;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                written += len;
                if (written > 200_000) {
                    throw stored;
                }
            }

            @Override
            public void flush() throws IOException {
                if (written > 200_000) {
                    throw stored;
                }
            }
        };
        ConsolidatedFileWriter w = new ConsolidatedFileWriter(failing, twoThreads,
                twoThreads ? 1 << 16 : ConsolidatedSchema.ROW_GROUP_BYTES);
        IOException thrown;
        try {
            thrown = assertThrows(IOException.class, () -> {
                Random random = new Random(5);
                for (int i = 0; i < EVENTS; i++) {
                    EIEvent_p1 e = event(i, random);
                    w.write(e, guid(i % 7));
                }
                w.finish(Map.of("eventindex.events", Integer.toString(EVENTS)));
            });
        } finally {
            w.close();
        }
        Throwable t = thrown;
        boolean named = false;
        for (; t != null && !named; t = t.getCause()) {
            named = t == stored || String.valueOf(t.getMessage()).contains("disk full");
        }
        assertTrue(named, "the error names the stream's failure: " + thrown);
        assertTrue(liveThreads("parquet-").isEmpty(), "threads left: " + liveThreads("parquet-"));
    }

    /**
     * A stream that blocks (an HDFS pipeline that stopped answering) while the flusher writes a row group: the thread
     * writing rows waits for that write before reusing its buffers, an interrupt ends the wait with an
     * InterruptedIOException, and closing the writer stops the flusher (its write is interrupted) and returns.
     */
    @Test
    void closeStopsARowGroupWriteThatBlocks() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (Thread.currentThread().getName().startsWith("parquet-flush-")) {
                    blocked.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        throw new InterruptedIOException("write interrupted");
                    }
                }
            }
        };
        ConsolidatedFileWriter w = new ConsolidatedFileWriter(stuck, true, 1 << 16);
        Throwable[] thrown = new Throwable[1];
        Thread rows = new Thread(() -> {
            Random random = new Random(9);
            try {
                for (int i = 0; i < EVENTS; i++) {
                    w.write(event(i, random), guid(i % 7));
                }
            } catch (Throwable e) {
                thrown[0] = e;
            }
        }, "rows");
        rows.start();
        blocked.await();
        rows.interrupt();
        rows.join();
        assertTrue(thrown[0] instanceof InterruptedIOException, "the row writer ends with: " + thrown[0]);
        w.close();
        assertTrue(liveThreads("parquet-").isEmpty(), "threads left: " + liveThreads("parquet-"));
        assertThrows(IllegalStateException.class, () -> w.write(event(0, new Random(1)), guid(0)));
    }

    /** Threads whose name starts with {@code prefix} and that have not ended yet. */
    private static List<String> liveThreads(String prefix) {
        List<String> live = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix) && t.isAlive()) {
                live.add(t.getName());
            }
        }
        return live;
    }

    static EIEvent_p1 event(int i, Random random) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                .setRunNumber(327636 + i / 20_000)
                .setEventNumber(1_000_000L + 3L * i + random.nextInt(3))
                .setLumiBlock(1 + i / 1000)
                .setTimeStamp(1_500_000_000 + i / 100)
                .setTimeStampNSOffset(random.nextInt(1_000_000_000))
                .setBcid(random.nextInt(3564))
                .setIsSimulation(false)
                .setIsCalibration(false)
                .setIsTestBeam(false)
                .setL1PassedTrigMask(TriggerMask.encodeL1(bits(512, random, 3), bits(512, random, 3),
                        bits(512, random, 2)))
                .setEFPassedTrigMask(TriggerMask.encodeHlt(bits(4096, random, 1 + random.nextInt(20)),
                        new BitSet(4096), new BitSet(4096)));
        if (random.nextInt(10) > 0) {
            b.setExtendedLevel1ID(random.nextInt());
        }
        if (i % 3 == 0) {
            b.setSMK(2711).setL1PSK(7).setHLTPSK(9);
        }
        int tokens = random.nextInt(4);
        String[] names = {"StreamAOD", "StreamESD", "StreamRAW"};
        for (int t = 0; t < tokens; t++) {
            b.addEitoken(EItoken_p1.newBuilder().setName(names[t]).setToken(new PoolToken(guid(i % 7 + 10 * t),
                    "POOLContainer(DataHeader)", "D82968A1-CF91-4320-B2DD-E0F739CBC7E6", 0x202, 3, i).format()));
        }
        return b.build();
    }

    private static BitSet bits(int width, Random random, int n) {
        BitSet b = new BitSet(width);
        for (int k = 0; k < n; k++) {
            b.set(random.nextInt(width));
        }
        return b;
    }

    static String guid(int i) {
        return String.format("%08X-0000-4000-8000-%012X", i, 0);
    }
}
