package org.eventindex.supervisor;

import org.eventindex.message.SignalObject;
import org.junit.jupiter.api.Test;

import java.util.List;

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
                new SignalObject(url("a-job"), 1000, List.of("G1"), 10),
                new SignalObject(url("b-job"), 1000, List.of("G2", "G3"), 50)), s.objects());
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
                new SignalObject(url("first"), 1000, List.of("G1", "G2"), 30),
                new SignalObject(url("partial-retry"), 1000, List.of("G3"), 30)), s.objects());
        assertEquals(List.of(new InvalidClaim(url("first"), "G3", 30, 5)), s.invalidClaims());
        assertEquals(60, s.expectedEvents());
    }

    @Test
    void theSignalCarriesEachObjectsSizeAndUncompressedSizeAsItsProducerReported() {
        Selection s = DatasetSelection.select(List.of(file("G1", 10)),
                List.of(new Candidate(url("a"), 1234, 98_765, 1, List.of(guid("G1", 0, 10)), "m-a")));
        assertEquals(List.of(new SignalObject(url("a"), 1234, 98_765, List.of("G1"), 10)), s.objects());
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
        assertEquals(List.of(new SignalObject(url("a"), 1000, List.of("G1"), 10)), s.objects());
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
}
