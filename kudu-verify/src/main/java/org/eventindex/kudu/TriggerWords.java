package org.eventindex.kudu;

/**
 * The trigger mask words of one event as its row stores them, kept compact until the row is built (decision 0078):
 * the non-zero words by index (L1 words 0..{@value KuduSchemas#L1_WORDS}-1, then the HLT words), and word 0 of a
 * present mask with no bit set as 0, so that it reads back apart from an absent mask ({@link TriggerMaskColumns}).
 * A handful of words where the row's {@code l1w*}/{@code hltw*} columns are 216 wide.
 */
final class TriggerWords {
    private static final TriggerWords NONE = new TriggerWords(new short[0], new long[0]);

    /** Word indexes, ascending: L1 word {@code w} is {@code w}, HLT word {@code w} is L1_WORDS + {@code w}. */
    final short[] index;
    /** The word at each of {@link #index}. */
    final long[] words;

    private TriggerWords(short[] index, long[] words) {
        this.index = index;
        this.words = words;
    }

    /** The words of the event {@code bits} decoded last. */
    static TriggerWords of(TriggerBits bits) {
        int n = stored(bits.l1, bits.hasL1) + stored(bits.hlt, bits.hasHlt);
        if (n == 0) {
            return NONE;
        }
        TriggerWords t = new TriggerWords(new short[n], new long[n]);
        int k = t.put(bits.l1, bits.hasL1, 0, 0);
        t.put(bits.hlt, bits.hasHlt, KuduSchemas.L1_WORDS, k);
        return t;
    }

    private static int stored(long[] words, boolean present) {
        int n = 0;
        for (long w : words) {
            if (w != 0) {
                n++;
            }
        }
        return n == 0 && present ? 1 : n;
    }

    private int put(long[] from, boolean present, int offset, int k) {
        int first = k;
        for (int w = 0; w < from.length; w++) {
            if (from[w] != 0) {
                index[k] = (short) (offset + w);
                words[k++] = from[w];
            }
        }
        if (k == first && present) {
            index[k] = (short) offset;
            words[k++] = 0L;
        }
        return k;
    }
}
