package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;

import java.util.HexFormat;
import java.util.List;

/**
 * The key-and-content checksum of a set of rows of one table, the same whether the rows are read from Kudu
 * ({@link RowResult}), built by the loader as it writes them, or built from the HDFS file by the loader's code and not
 * written ({@link PartialRow}). Each row hashes to 64 bits: every non-NULL column, by its name and its value (integers
 * and times as their 64-bit value, floats by their bits, text by its characters), mixed in the table's column order;
 * the checksum is the sum modulo 2^64 of the rows' hashes, so the order the rows come in does not matter and, with the
 * count, a deleted, added or changed row shows. A NULL column adds nothing, so a nullable column added to a table
 * (the way the tables evolve) leaves the checksum of rows that do not set it unchanged. Not cryptographic: it finds
 * accidents (lost, damaged or replaced data), not forgeries; the loader pays it on every row (decision 0070).
 */
final class RowChecksum {
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final long SEED = 0xcbf29ce484222325L;

    private final Type[] types;
    private final long[] names;
    private long sum;
    private long rows;

    RowChecksum(Schema schema) {
        List<ColumnSchema> columns = schema.getColumns();
        this.types = new Type[columns.size()];
        this.names = new long[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            types[i] = columns.get(i).getType();
            names[i] = text(SEED, columns.get(i).getName());
        }
    }

    void add(RowResult row) {
        long h = SEED;
        for (int i = 0; i < types.length; i++) {
            if (!row.isNull(i)) {
                h = value(h ^ names[i], types[i] == Type.UNIXTIME_MICROS ? row.getLong(i) : row.getObject(i));
            }
        }
        addRow(h);
    }

    void add(PartialRow row) {
        long h = SEED;
        for (int i = 0; i < types.length; i++) {
            if (row.isSet(i) && !row.isNull(i)) {
                h = value(h ^ names[i], types[i] == Type.UNIXTIME_MICROS ? row.getLong(i) : row.getObject(i));
            }
        }
        addRow(h);
    }

    private void addRow(long h) {
        // murmur3's finaliser: every bit of the row's hash depends on every bit mixed in
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        sum += h;
        rows++;
    }

    private static long value(long h, Object v) {
        if (v instanceof Long l) {
            return word(h, l);
        } else if (v instanceof Integer n) {
            return word(h, n);
        } else if (v instanceof String s) {
            return text(h, s);
        } else if (v instanceof Short n) {
            return word(h, n);
        } else if (v instanceof Byte n) {
            return word(h, n);
        } else if (v instanceof Boolean b) {
            return word(h, b ? 1 : 0);
        } else if (v instanceof Float f) {
            return word(h, Float.floatToIntBits(f));
        } else if (v instanceof Double d) {
            return word(h, Double.doubleToLongBits(d));
        } else if (v instanceof byte[] bytes) {
            long x = h;
            for (byte b : bytes) {
                x = (x ^ (b & 0xff)) * FNV_PRIME;
            }
            return word(x, bytes.length);
        }
        return text(h, v.toString());
    }

    private static long word(long h, long v) {
        h = (h ^ v) * FNV_PRIME;
        return h ^ (h >>> 31);
    }

    /** Four characters per step: the tokens and GUIDs are most of a row's bytes. */
    private static long text(long h, String s) {
        int n = s.length();
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            h = word(h, s.charAt(i) | (long) s.charAt(i + 1) << 16 | (long) s.charAt(i + 2) << 32
                    | (long) s.charAt(i + 3) << 48);
        }
        long rest = 0;
        for (; i < n; i++) {
            rest = rest << 16 | s.charAt(i);
        }
        return word(word(h, rest), n);
    }

    long rows() {
        return rows;
    }

    /** The sum of the rows' hashes (modulo 2^64). */
    long value() {
        return sum;
    }

    /** The checksum, 16 hex digits. */
    String hex() {
        return hex(sum);
    }

    /** The checksum of this set of rows and {@code other}'s together (a dataset's rows in EVENTS and MCEVENTS). */
    String hexWith(RowChecksum other) {
        return hex(sum + other.sum);
    }

    static String hex(long value) {
        return HexFormat.of().toHexDigits(value);
    }
}
