package org.eventindex.kudu;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /** The non-zero pair counts as (trig1, trig2, count) triples, ordered by (trig1, trig2): what a load shipped. */
    long[] triples() throws IOException {
        List<long[]> pairs = new ArrayList<>();
        forEach((t1, t2, c) -> pairs.add(new long[] {t1, t2, c}));
        long[] triples = new long[3 * pairs.size()];
        for (int i = 0; i < pairs.size(); i++) {
            System.arraycopy(pairs.get(i), 0, triples, 3 * i, 3);
        }
        return triples;
    }

    /** Calls {@code sink} for every (trig1, trig2, count) of {@code triples} ({@link #triples()}). */
    static void forEachTriple(long[] triples, PairSink sink) throws IOException {
        for (int i = 0; i < triples.length; i += 3) {
            sink.pair((int) triples[i], (int) triples[i + 1], triples[i + 2]);
        }
    }

    /** Pair counts however held: a counter's {@link #forEach}, or shipped {@link #triples()}. */
    @FunctionalInterface
    interface Pairs {
        void forEach(PairSink sink) throws IOException;
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
