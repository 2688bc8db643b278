package org.eventindex.consolidated;

import org.apache.parquet.io.LocalInputFile;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventRecordTest {

    /** The row checksum is defined over the protobuf serialization: the record must give exactly those bytes. */
    @Test
    void serializationEqualsTheProtobufMessages() {
        Random random = new Random(3);
        byte[] buffer = new byte[16];
        for (int i = 0; i < 2_000; i++) {
            EIEvent_p1 e = variant(ConsolidatedFileWriterTest.event(i, random), i, random);
            EventRecord r = EventRecord.of(e, ConsolidatedFileWriterTest.guid(i % 7));
            int size = r.serializedSize();
            byte[] expected = e.toByteArray();
            assertEquals(expected.length, size, "size of event " + i);
            if (buffer.length < size) {
                buffer = new byte[size];
            }
            r.serializeInto(buffer, size);
            assertArrayEquals(expected, Arrays.copyOf(buffer, size), "bytes of event " + i);
            assertEquals(e, r.toEvent());
        }
    }

    /** Rows read without protobuf messages are the rows written; the reader's count and checksum check passes. */
    @Test
    void readerGivesBackTheWrittenRows(@TempDir Path dir) throws IOException {
        Random random = new Random(8);
        List<EIEvent_p1> written = new ArrayList<>();
        Path file = dir.resolve("d.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (int i = 0; i < 5_000; i++) {
                EIEvent_p1 e = variant(ConsolidatedFileWriterTest.event(i, random), i, random);
                written.add(e);
                w.write(e, ConsolidatedFileWriterTest.guid(i % 7));
            }
            w.finish(metadata(written.size(), w.finishDigest()).toKeyValues());
        }
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(new LocalInputFile(file), file.toString())) {
            byte[] previousMask = null;
            for (int i = 0; i < written.size(); i++) {
                EventRecord r = reader.nextRecord();
                assertEquals(written.get(i), r.toEvent(), "row " + i);
                assertEquals(ConsolidatedFileWriterTest.guid(i % 7), r.guid);
                assertTrue(r.l1PassedTrigMask != previousMask, "a new mask array per row (Kudu keeps them)");
                previousMask = r.l1PassedTrigMask;
            }
            assertNull(reader.nextRecord());
        }
    }

    @Test
    void aRowChangedAfterWritingFailsTheChecksum(@TempDir Path dir) throws IOException {
        Random random = new Random(9);
        Path file = dir.resolve("d.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            RowDigest unchanged = new RowDigest();
            for (int i = 0; i < 100; i++) {
                EIEvent_p1 e = ConsolidatedFileWriterTest.event(i, random);
                // the footer's checksum is computed over the unchanged events, the row written differs in one field
                w.write(e.toBuilder().setBcid(e.getBcid() + (i == 50 ? 1 : 0)).build(),
                        ConsolidatedFileWriterTest.guid(0));
                unchanged.add(e, ConsolidatedFileWriterTest.guid(0));
            }
            w.finishDigest();
            w.finish(metadata(100, unchanged.hex()).toKeyValues());
        }
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(new LocalInputFile(file), file.toString())) {
            IOException x = assertThrows(IOException.class, () -> {
                while (reader.nextRecord() != null) {
                    // read to the end
                }
            });
            assertTrue(x.getMessage().contains("SHA-256"), x.getMessage());
        }
    }

    /** Adds the fields the writer test's events lack: simulation, MC fields, L2 mask, unsigned values. */
    private static EIEvent_p1 variant(EIEvent_p1 e, int i, Random random) {
        EIEvent_p1.Builder b = e.toBuilder();
        switch (i % 4) {
            case 1 -> b.setIsSimulation(true).setMcEventWeight(random.nextFloat() * 3 - 1)
                    .setMcChannelNumber(random.nextInt());
            case 2 -> b.setL2PassedTrigMask("").setIsCalibration(true).setRunNumber(-5).setLumiBlock(-1);
            case 3 -> b.clearL1PassedTrigMask().clearEFPassedTrigMask().setIsTestBeam(true)
                    .setEventNumber(-2L).setBcid(0);
            default -> {
            }
        }
        return b.build();
    }

    static ConsolidatedMetadata metadata(long events, String sha) {
        return new ConsolidatedMetadata("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "signal-1",
                new ConsolidatedMetadata.HeaderInfo(1, "task", "job", true, true), List.of(), List.of(), List.of(), events,
                List.of(327636L), 0, 2, sha);
    }
}
