package org.eventindex.bench;

import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.LocalInputFile;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consumer.ParquetConsolidatedFormat;
import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmark's parquet-mr column writers write the rows the own page encoders write (in small row groups here). */
class ParquetMrColumnsTest {
    private static final int ROWS = 30_000;

    @Test
    void theSameRowsAsTheOwnEncoders(@TempDir Path dir) throws IOException {
        List<EIEvent_p1> events = new ArrayList<>();
        Random random = new Random(11);
        for (int i = 0; i < ROWS; i++) {
            EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(-1 - i / 10_000).setEventNumber(-5_000L + i)
                    .setLumiBlock(i / 100).setTimeStamp(i).setTimeStampNSOffset(random.nextInt()).setBcid(7)
                    .setIsSimulation(false).setIsCalibration(i % 2 == 0).setIsTestBeam(false);
            if (i % 3 > 0) {
                b.setExtendedLevel1ID(random.nextInt()).setSMK(2711).setL1PassedTrigMask("D!!E" + i % 17)
                        .setMcEventWeight(i * 0.5f);
            }
            for (int t = 0; t < i % 4; t++) {
                b.addEitoken(EItoken_p1.newBuilder().setName(t == 0 ? "StreamAOD" : "StreamRAW").setToken(
                        new PoolToken(String.format("%08X-0000-4000-8000-%012X", t, i % 5), "POOLContainer(DataHeader)",
                                "D82968A1-CF91-4320-B2DD-E0F739CBC7E6", 0x202, 3, i).format()));
            }
            events.add(b.build());
        }
        List<String> own = read(write(dir.resolve("own.parquet"), events, false));
        List<String> mr = read(write(dir.resolve("mr.parquet"), events, true));
        assertEquals(ROWS, own.size());
        assertEquals(own, mr);
        try (ParquetFileReader f = ParquetFileReader.open(new LocalInputFile(dir.resolve("mr.parquet")))) {
            assertTrue(f.getRowGroups().size() > 2, f.getRowGroups().size() + " row groups");
        }
    }

    private static Path write(Path file, List<EIEvent_p1> events, boolean parquetMr) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = parquetMr
                    ? new ConsolidatedFileWriter(out, true, 1 << 19, ParquetMrColumns::new)
                    : ParquetConsolidatedFormat.OWN_ENCODERS.open(out, true);
            for (int i = 0; i < events.size(); i++) {
                w.write(events.get(i), String.format("%08X-0000-4000-8000-%012X", 99, i / 7_000));
            }
            w.finish(Map.of("eventindex.rows_sha256", w.finishDigest()));
        }
        return file;
    }

    private static List<String> read(Path file) throws IOException {
        List<String> rows = new ArrayList<>();
        try (ParquetReader<Group> reader = new ParquetReader.Builder<Group>(new LocalInputFile(file),
                new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new GroupReadSupport();
            }
        }.build()) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                rows.add(g.toString());
            }
        }
        return rows;
    }
}
