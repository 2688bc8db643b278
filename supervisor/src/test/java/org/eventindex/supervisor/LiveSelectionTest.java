package org.eventindex.supervisor;

import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.GuidInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.eventindex.supervisor.Fixtures.candidate;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The incremental selection ({@link LiveSelection}, through {@link TrackedDataset} as the engine uses it) against the
 * batch function {@link DatasetSelection#select} on seeded random datasets: manifests with and without counts (and
 * none), retried jobs' duplicates, invalid counts, GUIDs outside the manifest, GUIDs twice in one object, conflicting
 * claims, invalidated objects, manifests replaced midway, candidates out of journal order.
 */
class LiveSelectionTest {
    private static final int DATASETS = 3_000;

    @Test
    void incrementalSelectionEqualsTheBatchFunctionOnRandomDatasets() {
        Random random = new Random(20261126L);
        int completed = 0;
        int held = 0;
        int checks = 0;
        for (int n = 0; n < DATASETS; n++) {
            TrackedDataset d = new TrackedDataset("dataset-" + n);
            List<String> guids = guids(random);
            d.manifest = random.nextInt(6) == 0 ? null : manifest(random, guids);
            int objects = 1 + random.nextInt(25);
            long seq = 0;
            for (int o = 0; o < objects; o++) {
                seq += 1 + random.nextInt(3);
                Candidate c = candidate("d" + n + "-o" + o, seq, claims(random, guids, d.manifest));
                List<Candidate> after = new ArrayList<>(d.validCandidates());
                after.add(c);
                boolean batchComplete = DatasetSelection.select(d.manifest, after).complete();
                assertEquals(batchComplete, d.completeWith(c), () -> "completeWith " + c + " on " + d.name);
                d.candidates.add(c);
                d.urls.add(c.url());
                int change = random.nextInt(20);
                if (change == 0) {
                    // an operator invalidates a reported object, or one not reported yet
                    d.invalidObjects.put(random.nextBoolean() ? c.url() : url("d" + n + "-o" + (o + 1)), "test");
                } else if (change == 1) {
                    d.manifest = random.nextInt(4) == 0 ? null : manifest(random, guids);
                }
                if (random.nextInt(3) == 0 || o == objects - 1) {
                    Selection batch = assertSame(d);
                    completed += batch.complete() ? 1 : 0;
                    held += batch.held() ? 1 : 0;
                    checks++;
                }
            }
        }
        // the random datasets reach every outcome, often
        assertTrue(completed > DATASETS / 10, "complete selections: " + completed);
        assertTrue(held > DATASETS / 20, "held selections: " + held);
        assertTrue(checks > DATASETS * 3, "checks: " + checks);
    }

    @Test
    void candidatesOutOfJournalOrderAreFoldedInJournalOrder() {
        Random random = new Random(7L);
        for (int n = 0; n < 500; n++) {
            TrackedDataset d = new TrackedDataset("dataset-" + n);
            List<String> guids = guids(random);
            d.manifest = random.nextInt(5) == 0 ? null : manifest(random, guids);
            for (int o = 0; o < 1 + random.nextInt(12); o++) {
                d.candidates.add(candidate("d" + n + "-o" + o, random.nextInt(1_000),
                        claims(random, guids, d.manifest)));
                assertSame(d);
            }
        }
    }

    @Test
    void conflictIsHeldUntilTheWrongObjectIsInvalidated() {
        TrackedDataset d = new TrackedDataset("held");
        d.manifest = List.of(file("G1", -1), file("G2", 5));
        d.candidates.add(candidate("a", 1, guid("G1", 0, 10), guid("G2", 1, 5)));
        assertTrue(d.selection().complete());
        Candidate b = candidate("b", 2, guid("G1", 0, 11));
        assertFalse(d.completeWith(b));
        d.candidates.add(b);
        d.refreshCollectingState(0);
        assertEquals(CollectionState.HELD, d.state);
        d.invalidObjects.put(b.url(), "wrong count");
        d.refreshCollectingState(0);
        assertEquals(CollectionState.COLLECTING, d.state);
        assertTrue(assertSame(d).complete());
    }

    /** Asserts the dataset's live selection is the batch function's, orders included; returns it. */
    private static Selection assertSame(TrackedDataset d) {
        Selection batch = DatasetSelection.select(d.manifest, d.validCandidates());
        Selection live = d.selection();
        assertEquals(batch, live, d.name);
        // records compare maps regardless of order; their text shows the order too
        assertEquals(batch.toString(), live.toString(), d.name);
        assertEquals(batch.complete(), live.complete(), d.name);
        assertEquals(batch.held(), live.held(), d.name);
        return batch;
    }

    private static List<String> guids(Random random) {
        List<String> guids = new ArrayList<>();
        for (int g = 0, n = 1 + random.nextInt(8); g < n; g++) {
            guids.add("G" + g);
        }
        return guids;
    }

    /** A manifest over some of the GUIDs (the others are unexpected), a GUID listed twice now and then. */
    private static List<ManifestFile> manifest(Random random, List<String> guids) {
        List<ManifestFile> files = new ArrayList<>();
        boolean withCounts = random.nextInt(3) != 0;
        for (String g : guids) {
            if (random.nextInt(8) == 0) {
                continue;
            }
            files.add(file(g, withCounts && random.nextInt(6) != 0 ? count(g) : -1));
            if (random.nextInt(15) == 0) {
                files.add(file(g, random.nextInt(3)));
            }
        }
        return files;
    }

    /** The right count of a GUID, as its manifest gives it. */
    private static long count(String guid) {
        return 10 + guid.hashCode() % 3;
    }

    /** An object's claims: right or wrong counts, unknown GUIDs, a GUID twice. */
    private static GuidInfo[] claims(Random random, List<String> guids, List<ManifestFile> manifest) {
        List<GuidInfo> claims = new ArrayList<>();
        for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
            String g = random.nextInt(10) == 0 ? "X" + random.nextInt(3) : guids.get(random.nextInt(guids.size()));
            int kind = random.nextInt(10);
            long nevents = kind < 7 ? count(g) : kind < 9 ? count(g) + 1 : random.nextInt(3);
            claims.add(guid(g, random.nextInt(5), nevents));
        }
        return claims.toArray(GuidInfo[]::new);
    }
}
