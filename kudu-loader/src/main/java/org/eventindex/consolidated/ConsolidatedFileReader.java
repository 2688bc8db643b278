package org.eventindex.consolidated;

import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.InputFile;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;

import java.io.Closeable;
import java.io.IOException;
import java.util.Objects;

/**
 * Reads a consolidated file back as {@code EIEvent_p1} rows with their file GUID, in file order, and checks at the end
 * that the rows match the footer's row count and checksum. Used by the Kudu loader.
 */
public final class ConsolidatedFileReader implements Closeable {

    /** One row: the event and the GUID of the file it was indexed from. */
    public record Row(EIEvent_p1 event, String guid) {
    }

    private final String source;
    private final ConsolidatedMetadata metadata;
    private final ParquetReader<Group> reader;
    private final RowDigest digest = new RowDigest();
    private long rows;

    /**
     * @param source names the file in errors
     * @throws IllegalArgumentException when the file is not a consolidated file (metadata missing or malformed)
     */
    public ConsolidatedFileReader(InputFile file, String source) throws IOException {
        this.source = Objects.requireNonNull(source, "source is null");
        try (ParquetFileReader footer = ParquetFileReader.open(file)) {
            metadata = ConsolidatedMetadata.fromKeyValues(
                    footer.getFooter().getFileMetaData().getKeyValueMetaData(), source);
        }
        reader = new ParquetReader.Builder<Group>(file, new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new GroupReadSupport();
            }
        }.build();
    }

    public ConsolidatedMetadata metadata() {
        return metadata;
    }

    /**
     * @return the next row, or null at the end (after checking count and checksum)
     * @throws IOException naming the file when the rows disagree with the footer
     */
    public Row next() throws IOException {
        Group g = reader.read();
        if (g == null) {
            if (rows != metadata.events()) {
                throw new IOException(source + " holds " + rows + " rows but its metadata says " + metadata.events());
            }
            String sha = digest.hex();
            if (!sha.equals(metadata.rowsSha256())) {
                throw new IOException(source + ": the rows' SHA-256 " + sha + " differs from the metadata's "
                        + metadata.rowsSha256());
            }
            return null;
        }
        Row row = toRow(g);
        digest.add(row.event(), row.guid());
        rows++;
        return row;
    }

    /** Converts one row of {@link ConsolidatedSchema#SCHEMA} read by the example Group reader. */
    static Row toRow(Group g) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                .setRunNumber(g.getInteger(ConsolidatedSchema.RUN_NUMBER, 0))
                .setEventNumber(g.getLong(ConsolidatedSchema.EVENT_NUMBER, 0))
                .setLumiBlock(g.getInteger(ConsolidatedSchema.LUMI_BLOCK, 0))
                .setTimeStamp(g.getInteger(ConsolidatedSchema.TIME_STAMP, 0))
                .setTimeStampNSOffset(g.getInteger(ConsolidatedSchema.TIME_STAMP_NS_OFFSET, 0))
                .setBcid(g.getInteger(ConsolidatedSchema.BCID, 0))
                .setIsSimulation(g.getBoolean(ConsolidatedSchema.IS_SIMULATION, 0))
                .setIsCalibration(g.getBoolean(ConsolidatedSchema.IS_CALIBRATION, 0))
                .setIsTestBeam(g.getBoolean(ConsolidatedSchema.IS_TEST_BEAM, 0));
        if (has(g, ConsolidatedSchema.EXTENDED_LEVEL1_ID)) {
            b.setExtendedLevel1ID(g.getInteger(ConsolidatedSchema.EXTENDED_LEVEL1_ID, 0));
        }
        if (has(g, ConsolidatedSchema.L1_PASSED_TRIG_MASK)) {
            b.setL1PassedTrigMask(g.getString(ConsolidatedSchema.L1_PASSED_TRIG_MASK, 0));
        }
        if (has(g, ConsolidatedSchema.L2_PASSED_TRIG_MASK)) {
            b.setL2PassedTrigMask(g.getString(ConsolidatedSchema.L2_PASSED_TRIG_MASK, 0));
        }
        if (has(g, ConsolidatedSchema.EF_PASSED_TRIG_MASK)) {
            b.setEFPassedTrigMask(g.getString(ConsolidatedSchema.EF_PASSED_TRIG_MASK, 0));
        }
        if (has(g, ConsolidatedSchema.SMK)) {
            b.setSMK(g.getInteger(ConsolidatedSchema.SMK, 0));
        }
        if (has(g, ConsolidatedSchema.HLTPSK)) {
            b.setHLTPSK(g.getInteger(ConsolidatedSchema.HLTPSK, 0));
        }
        if (has(g, ConsolidatedSchema.L1PSK)) {
            b.setL1PSK(g.getInteger(ConsolidatedSchema.L1PSK, 0));
        }
        if (has(g, ConsolidatedSchema.MC_EVENT_WEIGHT)) {
            b.setMcEventWeight(g.getFloat(ConsolidatedSchema.MC_EVENT_WEIGHT, 0));
        }
        if (has(g, ConsolidatedSchema.MC_CHANNEL_NUMBER)) {
            b.setMcChannelNumber(g.getInteger(ConsolidatedSchema.MC_CHANNEL_NUMBER, 0));
        }
        if (has(g, ConsolidatedSchema.EITOKEN)) {
            Group list = g.getGroup(ConsolidatedSchema.EITOKEN, 0);
            int n = list.getFieldRepetitionCount(ConsolidatedSchema.LIST);
            for (int i = 0; i < n; i++) {
                Group element = list.getGroup(ConsolidatedSchema.LIST, i).getGroup(ConsolidatedSchema.ELEMENT, 0);
                b.addEitoken(EItoken_p1.newBuilder()
                        .setName(element.getString(ConsolidatedSchema.NAME, 0))
                        .setToken(element.getString(ConsolidatedSchema.TOKEN, 0)));
            }
        }
        return new Row(b.build(), g.getString(ConsolidatedSchema.GUID, 0));
    }

    private static boolean has(Group g, String field) {
        return g.getFieldRepetitionCount(field) > 0;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
