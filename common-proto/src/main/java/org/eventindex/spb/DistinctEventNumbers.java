package org.eventindex.spb;

import java.util.Arrays;

/**
 * Counts the distinct event numbers (uint64, unsigned order) of one run of one input file. Files list their events in
 * increasing event number almost always, so a number above every one seen so far is appended to a sorted array (no
 * hashing: the cost of a hash set's random access over millions of entries was a fifth of the producer's validation,
 * decision 0066); a number that is not is looked up in that array by binary search and kept in a hash set.
 * About 8 bytes per event in order; not thread-safe.
 */
final class DistinctEventNumbers {
    private long[] sorted = new long[1024];
    private int sortedSize;
    private LongHashSet outOfOrder;
    private boolean any;
    private long max;

    /** @return true if {@code eventNumber} was not seen before */
    boolean add(long eventNumber) {
        if (!any || Long.compareUnsigned(eventNumber, max) > 0) {
            if (sortedSize == sorted.length) {
                sorted = Arrays.copyOf(sorted, sortedSize * 2);
            }
            sorted[sortedSize++] = eventNumber;
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

    private boolean inSorted(long value) {
        int lo = 0;
        int hi = sortedSize - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(sorted[mid], value);
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
