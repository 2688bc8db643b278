package org.eventindex.kudu;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

class AsyncPairCounterTest {

    /** Pair counts as (trig1, trig2, count) rows, in the order forEach gives them. */
    private static List<List<Long>> rows(PairCounter counter) throws Exception {
        List<List<Long>> rows = new ArrayList<>();
        counter.forEach((t1, t2, c) -> rows.add(List.of((long) t1, (long) t2, c)));
        return rows;
    }

    @Test
    void countsLikeADirectCounterOverManyBatchesAndLargeEvents() throws Exception {
        Random random = new Random(42);
        PairCounter direct = new PairCounter();
        List<List<Long>> async;
        try (AsyncPairCounter counter = new AsyncPairCounter("test")) {
            int[] fired = new int[TriggerBits.MAX_ID];
            // more events than the pool of batches holds; the first 100 overflow the first batch's initial array
            for (int event = 0; event < 30_000; event++) {
                // 600 distinct ids spread over the whole id range (L1 and HLT), as in a real dataset
                int wanted = event < 100 || event % 997 == 1 ? 500 : random.nextInt(40);
                TreeSet<Integer> ids = new TreeSet<>();
                while (ids.size() < wanted) {
                    ids.add(7 * random.nextInt(600));
                }
                int n = 0;
                for (int id : ids) {
                    fired[n++] = id;
                }
                counter.add(fired, n);
                direct.add(fired, 0, n);
                // the caller reuses its array: the counter must have copied the ids
                java.util.Arrays.fill(fired, 0, n, 0);
            }
            async = rows(counter.finish());
        }
        assertEquals(rows(direct), async);
    }

    @Test
    void noEventsGiveNoPairs() throws Exception {
        try (AsyncPairCounter counter = new AsyncPairCounter("empty")) {
            assertEquals(List.of(), rows(counter.finish()));
        }
    }
}
