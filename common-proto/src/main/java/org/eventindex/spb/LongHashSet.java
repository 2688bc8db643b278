package org.eventindex.spb;

/**
 * A set of primitive longs (open addressing, linear probing), for counting distinct event numbers over millions of
 * events without boxing: about 16 bytes per element at most instead of ~50 for {@code HashSet<Long>}.
 * Not thread-safe.
 */
public final class LongHashSet {
    private static final int MAX_CAPACITY = 1 << 30;

    // 0 marks a free slot, so the value 0 itself is tracked apart.
    private long[] slots;
    private int mask;
    private int size;
    private boolean hasZero;

    public LongHashSet() {
        this(16);
    }

    /** @param expected number of elements to hold before the first resize */
    public LongHashSet(int expected) {
        if (expected < 0) {
            throw new IllegalArgumentException("expected size must not be negative: " + expected);
        }
        int capacity = Integer.highestOneBit(Math.max(8, (int) Math.min(MAX_CAPACITY, expected * 2L)) - 1) << 1;
        slots = new long[capacity];
        mask = capacity - 1;
    }

    /** @return true if the value was not in the set */
    public boolean add(long value) {
        if (value == 0) {
            if (hasZero) {
                return false;
            }
            hasZero = true;
            size++;
            return true;
        }
        int i = index(value);
        while (true) {
            long v = slots[i];
            if (v == 0) {
                slots[i] = value;
                size++;
                // Keep the load factor at most 1/2 so probe sequences stay short.
                if ((size - (hasZero ? 1 : 0)) * 2 > slots.length) {
                    grow();
                }
                return true;
            }
            if (v == value) {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    public boolean contains(long value) {
        if (value == 0) {
            return hasZero;
        }
        int i = index(value);
        while (true) {
            long v = slots[i];
            if (v == 0) {
                return false;
            }
            if (v == value) {
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public void clear() {
        java.util.Arrays.fill(slots, 0L);
        size = 0;
        hasZero = false;
    }

    private int index(long value) {
        // Event numbers are dense and sequential: mix the bits so they do not cluster in neighbouring slots.
        long h = value * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private void grow() {
        if (slots.length >= MAX_CAPACITY) {
            throw new IllegalStateException("LongHashSet cannot grow beyond " + MAX_CAPACITY + " slots");
        }
        long[] old = slots;
        slots = new long[old.length * 2];
        mask = slots.length - 1;
        for (long v : old) {
            if (v != 0) {
                int i = index(v);
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = v;
            }
        }
    }
}
