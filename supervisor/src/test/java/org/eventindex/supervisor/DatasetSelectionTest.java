package org.eventindex.supervisor;

import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.eventindex.supervisor.Fixtures.candidate;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatasetSelectionTest {

    @Test
    void oneObjectPerFileIsCompleteAndSortedByUrlWithGuidsInFileOrder() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", 10), file("G2", 20), file("G3", 30)),
                List.of(candidate("b-job", 1, guid("G3", 1, 30), guid("G2", 0, 20)),
                        candidate("a-job", 2, guid("G1", 0, 10))));

        assertTrue(s.complete());
        assertEquals(3, s.expectedFiles());
        assertEquals(List.of(
                object(url("a-job"), 1000, 0, guid("G1", 0, 10)),
                object(url("b-job"), 1000, 0, guid("G2", 0, 20), guid("G3", 1, 30))), s.objects());
        assertEquals(60, s.expectedEvents());
        assertEquals(List.of(), s.unusedObjects());
    }

    @Test
    void fullRetryOfAValidJobIsNeverSignalled() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", 10), file("G2", 20)),
                List.of(candidate("first", 1, guid("G1", 0, 10), guid("G2", 1, 20)),
                        candidate("retry", 2, guid("G1", 0, 10), guid("G2", 1, 20))));

        assertTrue(s.complete());
        assertEquals(List.of(url("first")), s.objects().stream().map(SignalObject::url).toList());
        assertEquals(List.of(url("retry")), s.unusedObjects());
    }

    @Test
    void retryWinsOnlyTheFilesTheFirstAttemptGotWrong() {
        // The first job indexed G3 only partly (5 of 30 events); a partial retry covers only G3.
        Selection s = DatasetSelection.select(
                List.of(file("G1", 10), file("G2", 20), file("G3", 30)),
                List.of(candidate("first", 1, guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 5)),
                        candidate("partial-retry", 2, guid("G3", 0, 30))));

        assertTrue(s.complete());
        assertEquals(List.of(
                object(url("first"), 1000, 0, guid("G1", 0, 10), guid("G2", 1, 20)),
                object(url("partial-retry"), 1000, 0, guid("G3", 0, 30))), s.objects());
        assertEquals(List.of(new InvalidClaim(url("first"), "G3", 30, 5)), s.invalidClaims());
        assertEquals(60, s.expectedEvents());
    }

    @Test
    void theSignalCarriesEachObjectsSizeAndUncompressedSizeAsItsProducerReported() {
        Selection s = DatasetSelection.select(List.of(file("G1", 10)),
                List.of(new Candidate(url("a"), 1234, 98_765, 1, List.of(guid("G1", 0, 10)), "m-a")));
        assertEquals(List.of(object(url("a"), 1234, 98_765, guid("G1", 0, 10))), s.objects());
    }

    /**
     * Issue 30: the consumer checks each object's content against its producer's claim before it writes anything, so
     * the signal carries, per selected file and in the order of the object's {@code guids}, the claim that won it: its
     * count and run ranges, not another attempt's. A claim without run ranges stays without them.
     */
    @Test
    void eachSignalledObjectCarriesTheWinningClaimOfEachOfItsFilesInGuidOrder() {
        GuidInfo g1 = claim("G1", 1, 10, Map.of("327636", new EventRange(5, 900)));
        GuidInfo g2 = claim("G2", 0, 20, Map.of("327636", new EventRange(901, 2000),
                "327637", new EventRange(0, 44)));
        GuidInfo g3WithoutRanges = claim("G3", 2, 30, null);
        GuidInfo g1OfARetry = claim("G1", 0, 10, Map.of("327636", new EventRange(6, 901)));
        Selection s = DatasetSelection.select(List.of(file("G1", 10), file("G2", 20), file("G3", 30)),
                List.of(candidate("a", 1, g3WithoutRanges, g1, g2), candidate("b", 2, g1OfARetry)));

        assertTrue(s.complete());
        assertEquals(List.of(url("a")), s.objects().stream().map(SignalObject::url).toList());
        SignalObject a = s.objects().get(0);
        assertEquals(List.of("G2", "G1", "G3"), a.guids(), "the object's file order");
        assertEquals(List.of(SignalFile.of(g2), SignalFile.of(g1), SignalFile.of(g3WithoutRanges)), a.files());
        assertEquals(List.of(new SignalFile("G2", 20, g2.runevtRanges()), new SignalFile("G1", 10,
                Map.of("327636", new EventRange(5, 900))), new SignalFile("G3", 30, null)), a.files());
        assertEquals(a.guids(), a.files().stream().map(SignalFile::guid).toList());
        assertEquals(a.expectedEvents(), a.files().stream().mapToLong(SignalFile::nevents).sum());

        // the same selection from the incremental fold the live path uses
        TrackedDataset d = new TrackedDataset("d");
        d.manifest = List.of(file("G1", 10), file("G2", 20), file("G3", 30));
        d.candidates.addAll(List.of(candidate("a", 1, g3WithoutRanges, g1, g2), candidate("b", 2, g1OfARetry)));
        assertEquals(s.objects(), d.selection().objects());
    }

    @Test
    void invalidCountsLeaveTheFileMissing() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", 10), file("G2", 20)),
                List.of(candidate("a", 1, guid("G1", 0, 10), guid("G2", 1, 19)),
                        candidate("b", 2, guid("G2", 0, 21))));

        assertFalse(s.complete());
        assertEquals(List.of("G2"), s.missingGuids());
        assertEquals(1, s.filesWithCandidate());
        assertEquals(2, s.invalidClaims().size());
    }

    @Test
    void objectWhoseFilesAreAllTakenIsNeverSignalledEvenIfReportedBetween() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", 10), file("G2", 20), file("G3", 30)),
                List.of(candidate("x", 1, guid("G1", 0, 10)),
                        candidate("y", 2, guid("G1", 0, 10), guid("G2", 1, 20)),
                        candidate("z", 3, guid("G2", 0, 20), guid("G3", 1, 30)),
                        candidate("w", 4, guid("G1", 0, 10), guid("G3", 1, 30))));

        assertTrue(s.complete());
        assertEquals(List.of(url("x"), url("y"), url("z")), s.objects().stream().map(SignalObject::url).toList());
        assertEquals(List.of("G2"), s.objects().get(1).guids());
        assertEquals(List.of("G3"), s.objects().get(2).guids());
        assertEquals(List.of(url("w")), s.unusedObjects());
    }

    @Test
    void unknownManifestCountAcceptsTheEarliestOfAgreeingClaims() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", -1)),
                List.of(candidate("late", 7, guid("G1", 0, 12)), candidate("early", 3, guid("G1", 0, 12))));

        assertTrue(s.complete());
        assertEquals(url("early"), s.chosen().get("G1"));
        assertEquals(12, s.expectedEvents());
        assertEquals(List.of(), s.conflicts());
    }

    @Test
    void unknownManifestCountWithDisagreeingAttemptsIsHeldWithBothClaims() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", -1), file("G2", 5)),
                List.of(candidate("late", 7, guid("G1", 0, 11), guid("G2", 1, 5)),
                        candidate("early", 3, guid("G1", 0, 12))));

        assertFalse(s.complete());
        assertTrue(s.held());
        assertEquals(1, s.conflicts().size());
        Conflict c = s.conflicts().get(0);
        assertEquals("G1", c.guid());
        assertEquals(java.util.Map.of(url("early"), 12L, url("late"), 11L), c.claims());
        assertTrue(c.reason().contains("G1") && c.reason().contains(url("late")), c.reason());
    }

    @Test
    void filesOutsideTheManifestAreNeverConsumed() {
        Selection s = DatasetSelection.select(
                List.of(file("G1", 10)),
                List.of(candidate("a", 1, guid("G1", 0, 10), guid("STRAY", 1, 5)),
                        candidate("only-stray", 2, guid("STRAY", 0, 5))));

        assertTrue(s.complete());
        assertEquals(List.of(object(url("a"), 1000, 0, guid("G1", 0, 10))), s.objects());
        assertEquals(List.of("STRAY"), s.unexpectedGuids());
        assertEquals(List.of(url("only-stray")), s.unusedObjects());
    }

    @Test
    void withoutManifestNothingIsComplete() {
        Selection s = DatasetSelection.select(null, List.of(candidate("a", 1, guid("G1", 0, 10))));

        assertFalse(s.complete());
        assertEquals(-1, s.expectedFiles());
        assertEquals(1, s.filesWithCandidate());
    }

    @Test
    void manifestWithoutObjectsIsIncomplete() {
        Selection s = DatasetSelection.select(List.of(file("G1", 10)), List.of());

        assertFalse(s.complete());
        assertEquals(List.of("G1"), s.missingGuids());
        assertEquals(List.of(), s.objects());
    }

    @Test
    void inputOrderDoesNotMatterOnlyJournalOrder() {
        List<Candidate> ordered = List.of(candidate("a", 1, guid("G1", 0, 10)), candidate("b", 2, guid("G1", 0, 10)));
        List<Candidate> shuffled = List.of(ordered.get(1), ordered.get(0));

        assertEquals(DatasetSelection.select(List.of(file("G1", 10)), ordered),
                DatasetSelection.select(List.of(file("G1", 10)), shuffled));
    }

    /** A claim as a producer reports it, with the given run ranges (null: none sent). */
    private static GuidInfo claim(String guid, int fileno, long nevents, Map<String, EventRange> ranges) {
        return new GuidInfo(guid, fileno, nevents, nevents, 1, 2, "f838", "physics_Main", "data17_13TeV", ranges);
    }

    /** A signalled object taking {@code claims} (in the object's file order) whole. */
    private static SignalObject object(String url, long size, long usize, GuidInfo... claims) {
        List<GuidInfo> all = List.of(claims);
        return new SignalObject(url, size, usize, all.stream().map(GuidInfo::guid).toList(),
                all.stream().mapToLong(GuidInfo::nevents).sum(), all.stream().map(SignalFile::of).toList());
    }
}
