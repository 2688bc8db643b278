package org.eventindex.kudu;

import org.eventindex.names.TriggerMask;
import org.eventindex.consolidated.EventRecord;

import java.util.Arrays;

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
    /** Whether the event has an L1 / HLT mask (an absent mask decodes to zero words like an empty one). */
    boolean hasL1;
    boolean hasHlt;
    /** Fired ids of this event, ascending, in {@code fired[0..firedCount)}. */
    final int[] fired = new int[MAX_ID];
    int firedCount;

    /**
     * @throws IllegalArgumentException when a mask is malformed
     */
    void decode(EventRecord e) {
        firedCount = 0;
        hasL1 = e.l1PassedTrigMask != null;
        hasHlt = e.efPassedTrigMask != null;
        if (hasL1) {
            TriggerMask.decodeL1Words(e.l1PassedTrigMask, l1);
            // TAV: words 16..23
            fired(l1, 2 * TriggerMask.L1_BITS / 64, TriggerMask.L1_BITS / 64, 0);
        } else {
            Arrays.fill(l1, 0);
        }
        if (hasHlt) {
            TriggerMask.decodeHltWords(e.efPassedTrigMask, hlt);
            // passed physics: words 0..63
            fired(hlt, 0, TriggerMask.HLT_BITS / 64, HLT_ID_OFFSET);
        } else {
            Arrays.fill(hlt, 0);
        }
    }

    /** Appends the set bits of {@code words[from, from + count)} as ids {@code idOffset + bit}, ascending. */
    private void fired(long[] words, int from, int count, int idOffset) {
        for (int w = 0; w < count; w++) {
            long word = words[from + w];
            while (word != 0) {
                fired[firedCount++] = idOffset + 64 * w + Long.numberOfTrailingZeros(word);
                word &= word - 1;
            }
        }
    }
}
