package org.eventindex.consolidated;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The dictionary of one column chunk: distinct values in the order they were first seen, stored in their PLAIN
 * encoding (which is the dictionary page's content as is), found again through an open-addressing table of ids.
 * Values are either 4-byte words (INT32 and FLOAT bits) or byte strings (BINARY, with the 4-byte length prefix in
 * the page); one dictionary holds one kind.
 */
final class Dictionary {
    /** 8 bytes at a time for hashing (masks are tens to hundreds of bytes, hashed once per value). */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteSink entries = new ByteSink(1 << 12);
    /** Start of each entry's value bytes in {@link #entries} (after the length prefix of a byte string). */
    private int[] offsets = new int[256];
    private int[] lengths = new int[256];
    private int[] hashes = new int[256];
    /** The value of each 4-byte entry, compared without reading {@link #entries}. */
    private int[] words = new int[256];
    /** id + 1 per slot, 0 for empty; a power of two, at most half full. */
    private int[] table = new int[512];
    private int size;

    int size() {
        return size;
    }

    /** Bytes of the dictionary page before compression. */
    int byteSize() {
        return entries.size();
    }

    /** The dictionary page's PLAIN values, in {@code [0, byteSize())}; entry bytes at {@link #offset}. */
    byte[] array() {
        return entries.array();
    }

    int offset(int id) {
        return offsets[id];
    }

    int length(int id) {
        return lengths[id];
    }

    int word(int id) {
        return words[id];
    }

    void clear() {
        entries.reset();
        if (size > 0) {
            Arrays.fill(table, 0);
            size = 0;
        }
    }

    /** The id of the 4-byte value {@code v}, added if new. */
    int findOrAddWord(int v) {
        int h = mix(v);
        int mask = table.length - 1;
        for (int slot = h & mask; ; slot = (slot + 1) & mask) {
            int id = table[slot] - 1;
            if (id < 0) {
                id = add(h, slot);
                offsets[id] = entries.size();
                lengths[id] = 4;
                words[id] = v;
                entries.writeInt(v);
                return id;
            }
            if (words[id] == v) {
                return id;
            }
        }
    }

    /** The id of the byte string {@code b[off, off + len)}, added (copied) if new. */
    int findOrAddBytes(byte[] b, int off, int len) {
        int h = hash(b, off, len);
        int mask = table.length - 1;
        byte[] stored = entries.array();
        for (int slot = h & mask; ; slot = (slot + 1) & mask) {
            int id = table[slot] - 1;
            if (id < 0) {
                id = add(h, slot);
                entries.writeInt(len);
                offsets[id] = entries.size();
                lengths[id] = len;
                entries.write(b, off, len);
                return id;
            }
            if (hashes[id] == h && lengths[id] == len
                    && Arrays.equals(stored, offsets[id], offsets[id] + len, b, off, off + len)) {
                return id;
            }
        }
    }

    private int add(int h, int slot) {
        int id = size++;
        if (id == offsets.length) {
            int n = id * 2;
            offsets = Arrays.copyOf(offsets, n);
            lengths = Arrays.copyOf(lengths, n);
            hashes = Arrays.copyOf(hashes, n);
            words = Arrays.copyOf(words, n);
        }
        hashes[id] = h;
        table[slot] = id + 1;
        if (size * 2 > table.length) {
            rehash();
        }
        return id;
    }

    private void rehash() {
        table = new int[table.length * 2];
        int mask = table.length - 1;
        for (int id = 0; id < size; id++) {
            int slot = hashes[id] & mask;
            while (table[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            table[slot] = id + 1;
        }
    }

    private static int mix(int v) {
        int h = v * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /**
     * A multiplicative hash of every byte, 4 at a time: masks and token names differ anywhere, so sampling would
     * collide.
     */
    private static int hash(byte[] b, int off, int len) {
        long h = len;
        int i = off;
        for (int stop = off + (len & ~7); i < stop; i += 8) {
            h = (h + (long) LONGS.get(b, i)) * 0x9E3779B97F4A7C15L;
        }
        for (int stop = off + len; i < stop; i++) {
            h = (h + b[i]) * 0x9E3779B97F4A7C15L;
        }
        return (int) (h ^ (h >>> 32));
    }
}
