package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * The key-and-content checksum of a set of rows of one table, the same whether the rows are read from Kudu
 * ({@link RowResult}), built by the loader as it writes them, or built from the HDFS file by the loader's code and not
 * written (both from the values set on each row, {@link RowValues}, or the {@link PartialRow} built, column by column).
 * Each row hashes to 64 bits: every non-NULL column, by its name and its value (integers and times as their 64-bit
 * value, floats by their bits, text by its characters), mixed in the table's column order; the checksum is the sum
 * modulo 2^64 of the rows' hashes, so the order the rows come in does not matter and, with the count, a deleted, added
 * or changed row shows. A NULL column adds nothing, so a nullable column added to a table (the way the tables evolve)
 * leaves the checksum of rows that do not set it unchanged. Not cryptographic: it finds accidents (lost, damaged or
 * replaced data), not forgeries; the loader pays it on every row (decisions 0070, 0084).
 */
final class RowChecksum {
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final long SEED = 0xcbf29ce484222325L;

    private final Type[] types;
    private final boolean[] nullable;
    private final long[] names;
    private long sum;
    private long rows;

    RowChecksum(Schema schema) {
        List<ColumnSchema> columns = schema.getColumns();
        this.types = new Type[columns.size()];
        this.nullable = new boolean[columns.size()];
        this.names = new long[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            types[i] = columns.get(i).getType();
            nullable[i] = columns.get(i).isNullable();
            names[i] = text(SEED, columns.get(i).getName());
        }
    }

    void add(RowResult row) {
        long h = SEED;
        for (int i = 0; i < types.length; i++) {
            if (nullable[i] && row.isNull(i)) {
                continue;
            }
            long named = h ^ names[i];
            h = switch (types[i]) {
                case INT8 -> word(named, row.getByte(i));
                case INT16 -> word(named, row.getShort(i));
                case INT32 -> word(named, row.getInt(i));
                case INT64, UNIXTIME_MICROS -> word(named, row.getLong(i));
                case STRING -> text(named, row.getString(i));
                default -> value(named, row.getObject(i));
            };
        }
        addRow(h);
    }

    /**
     * As {@link #add(RowResult)} for a row being built: the same value for the same columns. The loader sums the rows
     * it builds from their recorded values ({@link #add(RowValues)}), which the tests compare with this.
     */
    void add(PartialRow row) {
        long h = SEED;
        for (int i = 0; i < types.length; i++) {
            if (row.isSet(i) && !row.isNull(i)) {
                h = value(h ^ names[i], types[i] == Type.UNIXTIME_MICROS ? row.getLong(i) : row.getObject(i));
            }
        }
        addRow(h);
    }

    /**
     * As {@link #add(PartialRow)} of the row {@code values} were set on, from the values recorded as they were set:
     * the same value, without reading the row's columns back. Orders {@code values} by column.
     */
    void add(RowValues values) {
        values.sortByColumn();
        long h = SEED;
        int n = values.count();
        for (int k = 0; k < n; k++) {
            int i = values.column(k);
            if (k + 1 < n && values.column(k + 1) == i) {
                continue; // set again later: the row holds the last value
            }
            long named = h ^ names[i];
            byte[] text = values.text(k);
            h = text != null ? utf8(named, text) : word(named, values.number(k));
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

    /**
     * {@link #text(long, String)} of the string these UTF-8 bytes decode to (as {@code PartialRow.getString} decodes
     * them): read as the characters they are when every byte is ASCII, decoded first otherwise.
     */
    private static long utf8(long h, byte[] b) {
        int n = b.length;
        int high = 0;
        long x = h;
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            high |= b[i] | b[i + 1] | b[i + 2] | b[i + 3];
            x = word(x, b[i] | (long) b[i + 1] << 16 | (long) b[i + 2] << 32 | (long) b[i + 3] << 48);
        }
        long rest = 0;
        for (; i < n; i++) {
            high |= b[i];
            rest = rest << 16 | b[i];
        }
        if (high < 0) {
            return text(h, new String(b, StandardCharsets.UTF_8));
        }
        return word(word(x, rest), n);
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
