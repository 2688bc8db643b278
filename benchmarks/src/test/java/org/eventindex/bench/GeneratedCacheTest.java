package org.eventindex.bench;

import org.eventindex.gen.EventSize;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** bench-seed's kept generation: reused only when complete and of the same spec. */
class GeneratedCacheTest {
    private static final GeneratorSpec SPEC = new GeneratorSpec(BenchSeedMain.DATASET, 3, 40, 1, 1, 0, 2, false, 7L,
            EventSize.HEAVY);

    @Test
    void aSecondRunReusesTheSameFilesAndNumbers(@TempDir Path dir) throws IOException {
        GeneratedCache cache = new GeneratedCache(dir);
        List<Boolean> reused = new ArrayList<>();
        GeneratedDataset first = cache.get(SPEC, (d, t, e, b) -> { }, reused::add);
        byte[] firstBytes = Files.readAllBytes(first.jobs().get(0).spbFile());
        GeneratedDataset second = cache.get(SPEC, (d, t, e, b) -> {
            throw new AssertionError("generated again");
        }, reused::add);
        assertEquals(List.of(false, true), reused);
        assertEquals(first, second);
        assertEquals(4, second.jobs(GeneratedJob.Outcome.REPORTED).size(), "3 jobs, one of them reported twice");
        assertArrayEquals(firstBytes, Files.readAllBytes(second.jobs().get(0).spbFile()));
    }

    @Test
    void aGenerationCutShortOrAMissingFileIsNotReused(@TempDir Path dir) throws IOException {
        GeneratedCache cache = new GeneratedCache(dir);
        GeneratedDataset ds = cache.get(SPEC, (d, t, e, b) -> { }, r -> { });
        Files.delete(ds.jobs().get(1).spbFile());
        assertNull(cache.find(SPEC), "a file of the dataset is missing");
        Files.delete(cache.folder(SPEC).resolve(GeneratedCache.LEDGER));
        assertNull(cache.find(SPEC), "no ledger: the generation did not finish");
        List<Boolean> reused = new ArrayList<>();
        GeneratedDataset again = cache.get(SPEC, (d, t, e, b) -> { }, reused::add);
        assertEquals(List.of(false), reused);
        assertEquals(ds, again);
    }

    @Test
    void anotherSpecHasAnotherFolder() throws IOException {
        GeneratorSpec other = new GeneratorSpec(BenchSeedMain.DATASET, 3, 41, 1, 1, 0, 2, false, 7L, EventSize.HEAVY);
        assertNotEquals(GeneratedCache.key(SPEC), GeneratedCache.key(other));
        assertEquals(GeneratedCache.key(SPEC), GeneratedCache.key(SPEC));
    }
}
