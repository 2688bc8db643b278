package org.eventindex.kudu;

import java.util.Arrays;

/**
 * Counts, within one dataset, the events in which each pair of trigger ids fired together (trig1 <= trig2; the
 * diagonal trig1 == trig2 counts the events in which the trigger fired). Ids are mapped to dense indices in order of
 * first appearance, and counts live in a square matrix over those indices: memory grows with the square of the
 * number of distinct triggers that fire in the dataset (a few hundred in practice: ~1-8 MB), not with its events.
 */
final class PairCounter {
    private final int[] index = new int[TriggerBits.MAX_ID];
    private int[] ids = new int[64];
    private int distinct;
    private int capacity = 64;
    private long[] counts = new long[capacity * capacity];
    private final int[] dense = new int[TriggerBits.MAX_ID];

    PairCounter() {
        Arrays.fill(index, -1);
    }

    /** Adds one event whose fired ids are {@code fired[from..from + n)}, ascending. */
    void add(int[] fired, int from, int n) {
        for (int k = 0; k < n; k++) {
            int id = fired[from + k];
            int d = index[id];
            if (d < 0) {
                d = newIndex(id);
            }
            dense[k] = d;
        }
        for (int a = 0; a < n; a++) {
            int row = dense[a] * capacity;
            for (int b = a; b < n; b++) {
                counts[row + dense[b]]++;
            }
        }
    }

    /** Calls {@code sink} for every pair with a non-zero count, ordered by (trig1, trig2). */
    void forEach(PairSink sink) throws java.io.IOException {
        int[] order = Arrays.copyOf(ids, distinct);
        Arrays.sort(order);
        for (int i = 0; i < order.length; i++) {
            for (int j = i; j < order.length; j++) {
                int di = index[order[i]];
                int dj = index[order[j]];
                // an event adds (first-seen, later-seen) by id order, so the count sits at one of the two cells
                long c = counts[di * capacity + dj] + (di == dj ? 0 : counts[dj * capacity + di]);
                if (c > 0) {
                    sink.pair(order[i], order[j], c);
                }
            }
        }
    }

    /** Receives one pair count. */
    @FunctionalInterface
    interface PairSink {
        void pair(int trig1, int trig2, long count) throws java.io.IOException;
    }

    private int newIndex(int id) {
        if (distinct == capacity) {
            int grown = capacity * 2;
            long[] bigger = new long[grown * grown];
            for (int r = 0; r < capacity; r++) {
                System.arraycopy(counts, r * capacity, bigger, r * grown, capacity);
            }
            counts = bigger;
            capacity = grown;
            ids = Arrays.copyOf(ids, grown);
        }
        ids[distinct] = id;
        index[id] = distinct;
        return distinct++;
    }

}
