package org.eventindex.consolidated;

import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.InputFile;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.io.Closeable;
import java.io.IOException;
import java.util.Objects;

/**
 * Reads a consolidated file back in file order, each row with its file GUID, and checks at the end that the rows match
 * the footer's row count and checksum. The Kudu loader reads {@link EventRecord}s ({@link #nextRecord()}, no protobuf
 * message per row); {@link #next()} gives {@code EIEvent_p1} rows.
 */
public final class ConsolidatedFileReader implements Closeable {

    /** One row: the event and the GUID of the file it was indexed from. */
    public record Row(EIEvent_p1 event, String guid) {
    }

    private final String source;
    private final ConsolidatedMetadata metadata;
    private final ParquetReader<EventRecord> reader;
    private final RowDigest digest = new RowDigest();
    private byte[] serialized = new byte[1024];
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
        reader = new ParquetReader.Builder<EventRecord>(file, new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<EventRecord> getReadSupport() {
                return new EventRecordReadSupport();
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
        EventRecord r = nextRecord();
        return r == null ? null : new Row(r.toEvent(), r.guid);
    }

    /**
     * The next row without building a protobuf message: the same {@link EventRecord} instance, refilled on every
     * call (its byte arrays are not reused, so they may be kept).
     *
     * @return the row, or null at the end (after checking count and checksum)
     * @throws IOException naming the file when the rows disagree with the footer
     */
    public EventRecord nextRecord() throws IOException {
        EventRecord r = reader.read();
        if (r == null) {
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
        int size = r.serializedSize();
        if (size > serialized.length) {
            serialized = new byte[Math.max(size, 2 * serialized.length)];
        }
        r.serializeInto(serialized, size);
        digest.add(serialized, size, r.guidBytes);
        rows++;
        return r;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
