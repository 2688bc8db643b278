package org.eventindex.lookup;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link EventLookup} against a real Kudu loaded with {@link LookupFixture}'s datasets over two epochs. */
class EventLookupIT {
    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static EventLookup lookup;
    private static EventLookup withDuplicates;

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        lookup = new EventLookup(fixture.client(), CONFIG, 4, false);
        withDuplicates = new EventLookup(fixture.client(), CONFIG, 4, true);
    }

    @AfterAll
    static void stop() {
        if (lookup != null) {
            lookup.close();
            withDuplicates.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    /** "guid type dataset [dup]" of each match. */
    private static Set<String> matches(LookupResult r) {
        return r.matches().stream().map(m -> m.guid() + " " + m.type() + " " + m.dataset()
                + (m.duplicate() ? " dup" : "")).collect(Collectors.toSet());
    }

    private static LookupResult one(int run, long event) {
        return lookup.lookup(new EventKey(run, event), LookupFilter.all());
    }

    @Test
    void presentEventReportsOwnFileThenProvenanceWithTokens() {
        LookupResult r = one(RUN, 5);
        assertNull(r.error());
        assertEquals(Set.of(AOD_1 + " StreamAOD " + DS_AOD, ESD_1 + " StreamESD " + DS_AOD,
                RAW_1 + " StreamRAW " + DS_AOD), matches(r));
        LookupMatch own = r.matches().get(0);
        assertTrue(own.own());
        assertEquals("StreamAOD", own.type());
        assertEquals(token(AOD_1, 5), own.token());
        assertEquals(token(RAW_1, 5), r.matches().stream().filter(m -> m.type().equals("StreamRAW")).findFirst()
                .orElseThrow().token());
    }

    @Test
    void eventInTwoDatasetsOfTwoEpochsIsFoundInBoth() {
        LookupResult r = one(RUN, 150);
        assertEquals(Set.of(AOD_1 + " StreamAOD " + DS_AOD, ESD_1 + " StreamESD " + DS_AOD,
                RAW_1 + " StreamRAW " + DS_AOD,
                ESD_2 + " StreamESD " + DS_ESD, RAW_2 + " StreamRAW " + DS_ESD), matches(r));
        // only in the epoch-2 dataset
        assertEquals(Set.of(ESD_2 + " StreamESD " + DS_ESD, RAW_2 + " StreamRAW " + DS_ESD), matches(one(RUN, 250)));
    }

    @Test
    void absentEventsAreNotFound() {
        for (LookupResult r : List.of(one(RUN, 999_999), one(RUN, 0), one(OTHER_RUN, 150), one(1, 5),
                one(RUN, -1L))) {
            assertFalse(r.found(), r.toString());
            assertNull(r.error());
        }
    }

    @Test
    void runsAreKeptApart() {
        assertEquals(Set.of(AOD_3 + " StreamAOD " + DS_OTHER_RUN), matches(one(OTHER_RUN, 5)));
        assertFalse(matches(one(RUN, 5)).stream().anyMatch(m -> m.contains(DS_OTHER_RUN)));
    }

    @Test
    void loadingDatasetsAreInvisible() {
        assertFalse(matches(one(RUN, 3)).stream().anyMatch(m -> m.contains(AOD_LOADING)), "LOADING dataset");
        assertEquals(3, one(RUN, 3).matches().size());
    }

    @Test
    void duplicatedEventReportsTheEventsRowOnlyUnlessDuplicatesAreAsked() {
        Set<String> first = Set.of(AOD_1 + " StreamAOD " + DS_AOD, ESD_1 + " StreamESD " + DS_AOD,
                RAW_1 + " StreamRAW " + DS_AOD);
        assertEquals(first, matches(one(RUN, 55)));
        LookupResult all = withDuplicates.lookup(new EventKey(RUN, 55), LookupFilter.all());
        Set<String> expected = new java.util.HashSet<>(first);
        expected.addAll(Set.of(AOD_2 + " StreamAOD " + DS_AOD + " dup", ESD_1 + " StreamESD " + DS_AOD + " dup",
                RAW_1 + " StreamRAW " + DS_AOD + " dup"));
        assertEquals(expected, matches(all));
        assertEquals(6, all.matches().size());
        // a non-duplicated event has no extra rows
        assertEquals(3, withDuplicates.lookup(new EventKey(RUN, 60), LookupFilter.all()).matches().size());
    }

    @Test
    void simulatedEventsAreFoundByDatasetNumberInMcEvents() {
        assertEquals(Set.of(AOD_MC + " StreamAOD " + DS_MC), matches(one(MC_DATASET_NUMBER, 14)));
        assertEquals(token(AOD_MC, 14), one(MC_DATASET_NUMBER, 14).matches().get(0).token());
        assertFalse(one(MC_DATASET_NUMBER, 15).found(), "not a multiple of 7");
        assertFalse(one(MC_CONDITIONS_RUN, 14).found(), "simulation is keyed by the dataset number");
    }

    @Test
    void filtersSelectTypesAndDatasets() {
        EventKey k = new EventKey(RUN, 150);
        assertEquals(Set.of(RAW_1 + " StreamRAW " + DS_AOD, RAW_2 + " StreamRAW " + DS_ESD),
                matches(lookup.lookup(k, new LookupFilter(Set.of("StreamRAW"), null, null, null))));
        assertEquals(Set.of(ESD_2 + " StreamESD " + DS_ESD, RAW_2 + " StreamRAW " + DS_ESD),
                matches(lookup.lookup(k, new LookupFilter(Set.of(), null, null, "*.ESD.*"))));
        assertEquals(3, lookup.lookup(k, new LookupFilter(Set.of(), "data17_13TeV", "f838_m*", null)).matches().size());
        assertFalse(lookup.lookup(k, new LookupFilter(Set.of(), "data18_13TeV", null, null)).found());
        assertEquals(Set.of(AOD_MC + " StreamAOD " + DS_MC), matches(lookup.lookup(new EventKey(MC_DATASET_NUMBER,
                14), new LookupFilter(Set.of(), null, "e3601_r10201", null))), "AMI tag without task suffix");
    }

    @Test
    void batchKeepsInputOrderAcrossRuns() {
        List<EventKey> keys = List.of(new EventKey(RUN, 150), new EventKey(OTHER_RUN, 7), new EventKey(RUN, 999),
                new EventKey(MC_DATASET_NUMBER, 700), new EventKey(RUN, 1));
        List<LookupResult> rs = lookup.lookup(keys, LookupFilter.all());
        assertEquals(keys, rs.stream().map(LookupResult::key).toList());
        assertEquals(List.of(5, 1, 0, 1, 3), rs.stream().map(r -> r.matches().size()).toList());
    }
}
