package org.eventindex.gen;

import org.eventindex.names.TriggerMask;

import java.util.BitSet;
import java.util.Random;

/**
 * A dataset's trigger menu as a generator sees it: which L1 items and HLT chains exist and how often each fires.
 * Real masks are sparse and skewed (a few popular items fire in most events), which is what makes them compress
 * the way the experiment's files do; uniform random bits would compress far worse.
 */
final class TriggerModel {
    private static final int L1_ACTIVE = 160;
    private static final int HLT_ACTIVE = 600;
    private static final int HLT_PASSTHROUGH_ACTIVE = 12;

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

    TriggerModel(Random menuRandom) {
        l1Items = distinct(menuRandom, L1_ACTIVE, TriggerMask.L1_BITS);
        hltChains = distinct(menuRandom, HLT_ACTIVE, TriggerMask.HLT_BITS);
        passThroughChains = distinct(menuRandom, HLT_PASSTHROUGH_ACTIVE, TriggerMask.HLT_BITS);
    }

    /** The L1 field: TBP fires ~8-20 items; prescales drop some for TAP; vetoes rarely drop more for TAV. */
    String l1(Random r) {
        tbp.clear();
        tap.clear();
        tav.clear();
        int n = 14 + r.nextInt(21);
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

    /** The HLT field: ~5-16 physics chains, a few pass-through chains, resurrected almost always empty. */
    String hlt(Random r) {
        physics.clear();
        passedThrough.clear();
        resurrected.clear();
        int n = 10 + r.nextInt(21);
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
