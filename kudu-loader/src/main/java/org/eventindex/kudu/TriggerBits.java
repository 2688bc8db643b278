package org.eventindex.kudu;

import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.util.BitSet;

/**
 * Decodes one event's trigger masks once: the 64-bit words stored in the {@code l1w*}/{@code hltw*} columns, and the
 * fired trigger ids counted in TRIGGERCOUNT.
 * <p>
 * Trigger ids of TRIGGERCOUNT: L1 item {@code i} that passed after veto (TAV bit {@code i}) is {@code i} (0..511);
 * HLT chain {@code j} that passed physics is {@code 512 + j} (512..4607). Prescaled-away L1 items (TBP/TAP only),
 * pass-through and resurrected HLT chains are not counted: a pair count answers "how many accepted events fired both".
 */
final class TriggerBits {
    static final int HLT_ID_OFFSET = TriggerMask.L1_BITS;
    static final int MAX_ID = TriggerMask.L1_BITS + TriggerMask.HLT_BITS;

    final long[] l1 = new long[KuduSchemas.L1_WORDS];
    final long[] hlt = new long[KuduSchemas.HLT_WORDS];
    /** Fired ids of this event, ascending, in {@code fired[0..firedCount)}. */
    final int[] fired = new int[MAX_ID];
    int firedCount;

    /**
     * @throws IllegalArgumentException when a mask is malformed
     */
    void decode(EIEvent_p1 e) {
        java.util.Arrays.fill(l1, 0);
        java.util.Arrays.fill(hlt, 0);
        firedCount = 0;
        if (e.hasL1PassedTrigMask()) {
            BitSet bits = TriggerMask.decodeL1(e.getL1PassedTrigMask());
            long[] w = bits.toLongArray();
            System.arraycopy(w, 0, l1, 0, Math.min(w.length, l1.length));
            int tav = 2 * TriggerMask.L1_BITS;
            for (int i = bits.nextSetBit(tav); i >= 0; i = bits.nextSetBit(i + 1)) {
                fired[firedCount++] = i - tav;
            }
        }
        if (e.hasEFPassedTrigMask()) {
            BitSet[] masks = TriggerMask.decodeHlt(e.getEFPassedTrigMask());
            int wordsPerMask = TriggerMask.HLT_BITS / 64;
            for (int m = 0; m < masks.length; m++) {
                long[] w = masks[m].toLongArray();
                System.arraycopy(w, 0, hlt, m * wordsPerMask, Math.min(w.length, wordsPerMask));
            }
            for (int j = masks[0].nextSetBit(0); j >= 0; j = masks[0].nextSetBit(j + 1)) {
                fired[firedCount++] = HLT_ID_OFFSET + j;
            }
        }
    }
}
