package org.eventindex.gen;

import org.eventindex.names.TriggerMask;

import java.util.BitSet;
import java.util.Random;

import static java.util.Objects.requireNonNull;

/**
 * A dataset's trigger menu as a generator sees it: which L1 items and HLT chains exist and how often each fires.
 * Real masks are sparse and skewed (a few popular items fire in most events), which is what makes them compress
 * the way the experiment's files do; uniform random bits would compress far worse.
 * <p>
 * {@link EventSize#HEAVY} draws every event's items afresh, {@code 14..34} L1 items and {@code 10..30} HLT chains.
 * {@link EventSize#SEED} draws fewer items ({@code 4..11} and {@code 3..9}) into a menu of {@value #SIGNATURES}
 * recurring combinations, chosen with a strong skew, and draws a fresh combination for one event in
 * {@value #FRESH_ONE_IN}: the events of one stream fire the same few combinations, which gzip's window finds again.
 */
final class TriggerModel {
    private static final int L1_ACTIVE = 160;
    private static final int HLT_ACTIVE = 600;
    private static final int HLT_PASSTHROUGH_ACTIVE = 12;
    static final int SIGNATURES = 16;
    static final int FRESH_ONE_IN = 256;

    private final int[] l1Items;
    private final int[] hltChains;
    private final int[] passThroughChains;
    // Reused per event: the generator is single-threaded per model.
    private final BitSet tbp = new BitSet(TriggerMask.L1_BITS);
    private final BitSet tap = new BitSet(TriggerMask.L1_BITS);
    private final BitSet tav = new BitSet(TriggerMask.L1_BITS);
    private final BitSet physics = new BitSet(TriggerMask.HLT_BITS);
    private final BitSet passedThrough = new BitSet(TriggerMask.HLT_BITS);
    private final BitSet resurrected = new BitSet(TriggerMask.HLT_BITS);

    private final int l1Min;
    private final int l1Spread;
    private final int hltMin;
    private final int hltSpread;
    // SEED only: the recurring combinations, and the one l1() chose for hlt() to follow (same event).
    private final String[] l1Signatures;
    private final String[] hltSignatures;
    private String pendingHlt;

    TriggerModel(Random menuRandom, EventSize size) {
        l1Items = distinct(menuRandom, L1_ACTIVE, TriggerMask.L1_BITS);
        hltChains = distinct(menuRandom, HLT_ACTIVE, TriggerMask.HLT_BITS);
        passThroughChains = distinct(menuRandom, HLT_PASSTHROUGH_ACTIVE, TriggerMask.HLT_BITS);
        if (size == EventSize.HEAVY) {
            l1Min = 14;
            l1Spread = 21;
            hltMin = 10;
            hltSpread = 21;
            l1Signatures = null;
            hltSignatures = null;
        } else {
            l1Min = 4;
            l1Spread = 8;
            hltMin = 3;
            hltSpread = 7;
            l1Signatures = new String[SIGNATURES];
            hltSignatures = new String[SIGNATURES];
            for (int i = 0; i < SIGNATURES; i++) {
                l1Signatures[i] = freshL1(menuRandom);
                hltSignatures[i] = freshHlt(menuRandom);
            }
        }
    }

    /**
     * The L1 field of the next event. With {@link EventSize#SEED} it also chooses the event's HLT field, which the
     * following {@link #hlt} call returns: call them in pairs, l1 first.
     */
    String l1(Random r) {
        if (l1Signatures == null) {
            return freshL1(r);
        }
        if (r.nextInt(FRESH_ONE_IN) == 0) {
            pendingHlt = freshHlt(r);
            return freshL1(r);
        }
        double u = r.nextDouble();
        int s = (int) (SIGNATURES * u * u * u);
        pendingHlt = hltSignatures[s];
        return l1Signatures[s];
    }

    /** The HLT field of the event whose L1 field {@link #l1} returned last. */
    String hlt(Random r) {
        if (hltSignatures == null) {
            return freshHlt(r);
        }
        String h = requireNonNull(pendingHlt, "hlt() before l1()");
        pendingHlt = null;
        return h;
    }

    /** TBP fires the chosen number of items; prescales drop some for TAP; vetoes rarely drop more for TAV. */
    private String freshL1(Random r) {
        tbp.clear();
        tap.clear();
        tav.clear();
        int n = l1Min + r.nextInt(l1Spread);
        for (int i = 0; i < n; i++) {
            int item = pick(r, l1Items);
            tbp.set(item);
            if (r.nextInt(5) != 0) {
                tap.set(item);
                if (r.nextInt(20) != 0) {
                    tav.set(item);
                }
            }
        }
        return TriggerMask.encodeL1(tbp, tap, tav);
    }

    /** Physics chains, sometimes a pass-through chain, resurrected almost always empty. */
    private String freshHlt(Random r) {
        physics.clear();
        passedThrough.clear();
        resurrected.clear();
        int n = hltMin + r.nextInt(hltSpread);
        for (int i = 0; i < n; i++) {
            physics.set(pick(r, hltChains));
        }
        if (r.nextInt(4) == 0) {
            passedThrough.set(passThroughChains[r.nextInt(passThroughChains.length)]);
        }
        if (r.nextInt(200) == 0) {
            resurrected.set(pick(r, hltChains));
        }
        return TriggerMask.encodeHlt(physics, passedThrough, resurrected);
    }

    /** Skewed choice: low indices (the popular items) are picked far more often. */
    private static int pick(Random r, int[] items) {
        double u = r.nextDouble();
        return items[(int) (items.length * u * u)];
    }

    private static int[] distinct(Random r, int count, int range) {
        BitSet used = new BitSet(range);
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            int v;
            do {
                v = r.nextInt(range);
            } while (used.get(v));
            used.set(v);
            out[i] = v;
        }
        return out;
    }
}
