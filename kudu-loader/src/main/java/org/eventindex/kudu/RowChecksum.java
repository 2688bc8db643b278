package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The key-and-content checksum of a set of rows of one table, the same whether the rows are read from Kudu
 * ({@link RowResult}) or built from the HDFS file by the loader's own code ({@link PartialRow}, not written): each
 * row is the text of its columns in the table's order (a NULL or unset column as {@code \0}, each value followed by
 * {@code \u001f}), hashed with SHA-256; the checksum is the sum modulo 2^64 of the hashes' first 8 bytes, so the order
 * the rows come in does not matter, and with the count a deleted, added or changed row shows.
 */
final class RowChecksum {
    private final List<ColumnSchema> columns;
    private final MessageDigest sha;
    private final StringBuilder text = new StringBuilder(512);
    private long sum;
    private long rows;

    RowChecksum(Schema schema) {
        this.columns = List.copyOf(schema.getColumns());
        try {
            this.sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    void add(RowResult row) {
        add(i -> row.isNull(i) ? null : row.getObject(i));
    }

    void add(PartialRow row) {
        add(i -> !row.isSet(i) || row.isNull(i) ? null : row.getObject(i));
    }

    private void add(IntFunction<Object> value) {
        text.setLength(0);
        for (int i = 0; i < columns.size(); i++) {
            Object v = value.apply(i);
            text.append(v == null ? "\0" : v instanceof byte[] b ? Arrays.toString(b) : v.toString()).append('\u001f');
        }
        byte[] hash = sha.digest(text.toString().getBytes(StandardCharsets.UTF_8));
        sum += ByteBuffer.wrap(hash, 0, Long.BYTES).getLong();
        rows++;
    }

    long rows() {
        return rows;
    }

    /** The checksum, 16 hex digits. */
    String hex() {
        return hex(sum);
    }

    /** The checksum of this set of rows and {@code other}'s together (a dataset's rows in EVENTS and MCEVENTS). */
    String hexWith(RowChecksum other) {
        return hex(sum + other.sum);
    }

    private static String hex(long value) {
        return HexFormat.of().toHexDigits(value);
    }
}
