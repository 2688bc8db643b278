package org.eventindex.lookup;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link DatasetCache} with a fake clock: reuse while younger than the TTL, a new scan from the TTL on. */
class DatasetCacheTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<Integer> scans = new ArrayList<>();
    private List<LoadedDataset> current = List.of(ds("a", 1));

    private static LoadedDataset ds(String name, int dspid) {
        return new LoadedDataset(name, "data17_13TeV", "AOD", "f1", dspid, 1);
    }

    private DatasetCache cache(Duration ttl) {
        return new DatasetCache(run -> {
            scans.add(run);
            return current;
        }, ttl, now::get);
    }

    @Test
    void entriesAreReusedStrictlyWithinTheTtl() throws Exception {
        DatasetCache c = cache(Duration.ofMillis(1000));
        assertEquals(List.of(ds("a", 1)), c.loadedDatasets(7));
        current = List.of(ds("b", 2));
        now.addAndGet(999_999_999L);
        assertEquals(List.of(ds("a", 1)), c.loadedDatasets(7), "999.999999 ms old: still cached");
        assertEquals(List.of(7), scans);
        now.addAndGet(1);
        assertEquals(List.of(ds("b", 2)), c.loadedDatasets(7), "1 s old: read again");
        assertEquals(List.of(7, 7), scans);
        // runs are cached apart
        assertEquals(List.of(ds("b", 2)), c.loadedDatasets(8));
        assertEquals(List.of(7, 7, 8), scans);
    }

    @Test
    void zeroTtlReadsEveryTimeAndFailuresAreNotCached() throws Exception {
        DatasetCache c = cache(Duration.ZERO);
        c.loadedDatasets(7);
        c.loadedDatasets(7);
        assertEquals(List.of(7, 7), scans);
        assertEquals(0, c.size());

        int[] calls = {0};
        DatasetCache failing = new DatasetCache(run -> {
            if (calls[0]++ == 0) {
                throw new IllegalStateException("scan failed");
            }
            return current;
        }, Duration.ofSeconds(10), now::get);
        assertThrows(IllegalStateException.class, () -> failing.loadedDatasets(7));
        assertEquals(current, failing.loadedDatasets(7));
        assertEquals(2, calls[0]);
        assertThrows(IllegalArgumentException.class, () -> cache(Duration.ofMillis(-1)));
    }
}
