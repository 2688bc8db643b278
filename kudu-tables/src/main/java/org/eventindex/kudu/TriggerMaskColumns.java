package org.eventindex.kudu;

import org.apache.kudu.client.RowResult;
import org.eventindex.names.TriggerMask;

import java.util.ArrayList;
import java.util.List;

/**
 * The coded trigger mask text of an event row, derived from its 64-bit word columns (decision 0037: the text is not
 * stored in Kudu). A reader projects {@link #l1Columns()} and/or {@link #hltColumns()} and calls {@link #l1Mask} /
 * {@link #hltMask}; the result is the text the consolidated file holds for every canonically coded mask (what the
 * experiment's coder writes), and null when the event had no such mask (every word NULL; a present mask with no bit
 * set has word 0 stored as 0).
 */
public final class TriggerMaskColumns {
    private static final List<String> L1 = names(KuduSchemas.L1_WORDS, true);
    private static final List<String> HLT = names(KuduSchemas.HLT_WORDS, false);

    private TriggerMaskColumns() {
    }

    /** {@code l1w00..l1w23}, in word order. */
    public static List<String> l1Columns() {
        return L1;
    }

    /** {@code hltw000..hltw191}, in word order. */
    public static List<String> hltColumns() {
        return HLT;
    }

    /** The L1 field ({@code L1PassedTrigMask}) of {@code row}, or null when the event had none. */
    public static String l1Mask(RowResult row) {
        long[] words = new long[KuduSchemas.L1_WORDS];
        return read(row, L1, words) ? TriggerMask.encodeL1Words(words) : null;
    }

    /** The HLT/EF field ({@code EFPassedTrigMask}) of {@code row}, or null when the event had none. */
    public static String hltMask(RowResult row) {
        long[] words = new long[KuduSchemas.HLT_WORDS];
        return read(row, HLT, words) ? TriggerMask.encodeHltWords(words) : null;
    }

    /** Fills {@code words} from the row (NULL = 0); true when any word is not NULL. */
    private static boolean read(RowResult row, List<String> columns, long[] words) {
        boolean present = false;
        for (int w = 0; w < words.length; w++) {
            String column = columns.get(w);
            if (!row.isNull(column)) {
                words[w] = row.getLong(column);
                present = true;
            }
        }
        return present;
    }

    private static List<String> names(int count, boolean l1) {
        List<String> names = new ArrayList<>(count);
        for (int w = 0; w < count; w++) {
            names.add(l1 ? KuduSchemas.l1Word(w) : KuduSchemas.hltWord(w));
        }
        return List.copyOf(names);
    }
}
