package org.eventindex.spb;

import java.util.Arrays;

/**
 * Counts the distinct event numbers (uint64, unsigned order) of one run of one input file. Files list their events in
 * increasing event number almost always, so a number above every one seen so far is appended to a sorted array (no
 * hashing: the cost of a hash set's random access over millions of entries was a fifth of the producer's validation,
 * decision 0066); a number that is not is looked up in that array by binary search and kept in a hash set.
 * <p>
 * The sorted array is kept in pages of {@value #PAGE} numbers (256 KiB): a file of a million events would otherwise
 * grow one array of 8 MB by copies, each one a humongous object in the producer's 64 MB heap that young collections
 * cannot reclaim (decision 0077). About 8 bytes per event in order; not thread-safe.
 */
final class DistinctEventNumbers {
    private static final int PAGE_SHIFT = 15;
    static final int PAGE = 1 << PAGE_SHIFT;
    private static final int FIRST_PAGE = 1024;

    private long[][] pages = {new long[FIRST_PAGE]};
    /** The last page, where the next number in order goes. */
    private long[] page = pages[0];
    private int sortedSize;
    private LongHashSet outOfOrder;
    private boolean any;
    private long max;

    /** @return true if {@code eventNumber} was not seen before */
    boolean add(long eventNumber) {
        if (!any || Long.compareUnsigned(eventNumber, max) > 0) {
            append(eventNumber);
            max = eventNumber;
            any = true;
            return true;
        }
        if (inSorted(eventNumber)) {
            return false;
        }
        if (outOfOrder == null) {
            outOfOrder = new LongHashSet(64);
        }
        return outOfOrder.add(eventNumber);
    }

    /** Distinct event numbers added. */
    long size() {
        return sortedSize + (outOfOrder == null ? 0 : outOfOrder.size());
    }

    private void append(long value) {
        int i = sortedSize & (PAGE - 1);
        if (i == 0 && sortedSize > 0) {
            int p = sortedSize >>> PAGE_SHIFT;
            if (p == pages.length) {
                pages = Arrays.copyOf(pages, 2 * p);
            }
            page = pages[p] = new long[PAGE];
        } else if (i == page.length) {
            // the first page grows up to a whole one: files of a few events cost a few KiB
            page = pages[0] = Arrays.copyOf(page, 2 * i);
        }
        page[i] = value;
        sortedSize++;
    }

    private boolean inSorted(long value) {
        int lo = 0;
        int hi = sortedSize - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(pages[mid >>> PAGE_SHIFT][mid & (PAGE - 1)], value);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return true;
            }
        }
        return false;
    }
}
