package org.eventindex.kudu;

import org.apache.kudu.client.PartialRow;

import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * A row being built and the values set on it, so that its checksum ({@link RowChecksum#add(RowValues)}) is summed
 * from the ~35 values the loader sets rather than by reading each of the table's ~240 columns back from the
 * {@link PartialRow} (a fifth of the loading thread's CPU). {@link EventRowMapper} and {@link EventInserts}, the one
 * builder of the loader's rows, set every column through it; a column set twice counts with its last value, as the
 * row holds it. Reused for row after row ({@link #of}); one thread.
 */
final class RowValues {
    private PartialRow row;
    private int count;
    private int[] columns = new int[64];
    private long[] numbers = new long[64];
    private byte[][] texts = new byte[64][];

    /** Starts recording the values set on {@code row} (those of the row before are forgotten). */
    RowValues of(PartialRow row) {
        this.row = requireNonNull(row, "row is null");
        Arrays.fill(texts, 0, count, null);
        count = 0;
        return this;
    }

    void addInt(int column, int value) {
        row.addInt(column, value);
        put(column, value, null);
    }

    void addLong(int column, long value) {
        row.addLong(column, value);
        put(column, value, null);
    }

    /** Sets a STRING column to these UTF-8 bytes, handed over as they are (not copied), as the row keeps them. */
    void addStringUtf8(int column, byte[] utf8) {
        row.addStringUtf8(column, utf8);
        put(column, 0, utf8);
    }

    boolean isSet(int column) {
        return row.isSet(column);
    }

    int count() {
        return count;
    }

    int column(int k) {
        return columns[k];
    }

    /** The integer value of entry {@code k} (an INT32 as its sign-extended 64 bits), or 0 for a text. */
    long number(int k) {
        return numbers[k];
    }

    /** The UTF-8 bytes of entry {@code k}, or null for a number. */
    byte[] text(int k) {
        return texts[k];
    }

    /**
     * Orders the entries by column, those of one column in the order they were set (a stable insertion sort: a row
     * has a few dozen entries, mostly set in column order already).
     */
    void sortByColumn() {
        for (int k = 1; k < count; k++) {
            int c = columns[k];
            if (columns[k - 1] <= c) {
                continue;
            }
            long n = numbers[k];
            byte[] t = texts[k];
            int j = k - 1;
            while (j >= 0 && columns[j] > c) {
                columns[j + 1] = columns[j];
                numbers[j + 1] = numbers[j];
                texts[j + 1] = texts[j];
                j--;
            }
            columns[j + 1] = c;
            numbers[j + 1] = n;
            texts[j + 1] = t;
        }
    }

    private void put(int column, long number, byte[] text) {
        if (count == columns.length) {
            columns = Arrays.copyOf(columns, 2 * count);
            numbers = Arrays.copyOf(numbers, 2 * count);
            texts = Arrays.copyOf(texts, 2 * count);
        }
        columns[count] = column;
        numbers[count] = number;
        texts[count] = text;
        count++;
    }
}
