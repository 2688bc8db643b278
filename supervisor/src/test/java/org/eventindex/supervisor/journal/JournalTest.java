package org.eventindex.supervisor.journal;

import org.eventindex.message.EventRange;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.SignalObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JournalTest {
    @TempDir
    Path dir;

    private static final String DS = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    private static List<JournalEvent> everyKind() {
        ProducerInfo info = new ProducerInfo(1, 2, "1", "t.G", "j.1", 3, 4, DS, 5, 5, 1, "u", 6,
                "s3://h:1/b/k", List.of(new GuidInfo("G1", 0, 5, 5, 1, 2, "f1", "s", "p", Map.of("1", new EventRange(1, 9)))));
        ConsumerSignal signal = new ConsumerSignal(ConsumerSignal.TYPE, "sig", DS, DS, 1, 1,
                List.of(new SignalObject("s3://h:1/b/k", 1, List.of("G1"), 5)), 5, 7);
        return List.of(
                new JournalEvent.ObjectReported("m1", info),
                new JournalEvent.ManifestRegistered(new DatasetManifest(DatasetManifest.TYPE, DS,
                        List.of(new DatasetManifest.ManifestFile("G1", 5)))),
                new JournalEvent.SignalPlanned(signal),
                new JournalEvent.SignalSent(DS, "sig"),
                new JournalEvent.ReportReceived(new ConsumerReport(ConsumerReport.TYPE, "sig", DS, "c", "DONE", "/p",
                        5, 5, 0, 1, 1, 1, null, 8, false)),
                new JournalEvent.ResignalRequested(DS, "sig", null),
                new JournalEvent.ResignalRequested(DS, "sig", "lease expired"),
                new JournalEvent.ObjectInvalidated(DS, "s3://h:1/b/k", "truncated", "consumer-1"),
                new JournalEvent.ObjectsDeleted(DS, java.util.List.of("s3://h:1/b/k")),
                new JournalEvent.MessageRejected("/queue/q", "m2", "BAD_JSON", "body is not JSON", null, "{"));
    }

    @Test
    void appendedEntriesReplayInOrderWithTheirContent() throws IOException {
        List<JournalEvent> events = everyKind();
        try (Journal j = Journal.open(dir, e -> { throw new AssertionError("empty journal replayed " + e); })) {
            List<JournalEntry> written = j.append(events.subList(0, 3), 1000);
            written = new ArrayList<>(written);
            written.addAll(j.append(events.subList(3, events.size()), 2000));
            assertEquals(events.size(), j.lastSeq());
            assertEquals(List.of(1L, 2L, 3L), written.subList(0, 3).stream().map(JournalEntry::seq).toList());
        }
        List<JournalEntry> replayed = new ArrayList<>();
        try (Journal j = Journal.open(dir, replayed::add)) {
            assertEquals(events, replayed.stream().map(JournalEntry::event).toList());
            assertEquals(1000, replayed.get(2).tsMillis());
            assertEquals(2000, replayed.get(3).tsMillis());
            assertEquals(new Journal.ReplaySummary(events.size(), 0, 0, 0), j.replaySummary());
            assertEquals(events.size() + 1, j.append(List.of(events.get(3)), 3000).get(0).seq());
        }
    }

    @Test
    void tornLastLineIsTruncatedAndTheNextAppendContinuesCleanly() throws IOException {
        try (Journal j = Journal.open(dir, e -> { })) {
            j.append(everyKind().subList(0, 2), 1);
        }
        Path file = dir.resolve(Journal.FILE_NAME);
        long good = Files.size(file);
        // What a kill -9 in the middle of a write leaves: part of a line, no newline.
        Files.write(file, "{\"seq\":3,\"ts\":5,\"event\":{\"type\":\"SIGNAL_SE".getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.APPEND);

        List<JournalEntry> replayed = new ArrayList<>();
        try (Journal j = Journal.open(dir, replayed::add)) {
            assertEquals(2, replayed.size());
            assertEquals(good, Files.size(file));
            assertTrue(j.replaySummary().tornBytesTruncated() > 0);
            assertEquals(3, j.append(List.of(new JournalEvent.SignalSent(DS, "x")), 9).get(0).seq());
        }
        replayed.clear();
        try (Journal j = Journal.open(dir, replayed::add)) {
            assertEquals(3, replayed.size());
            assertEquals(0, j.replaySummary().tornBytesTruncated());
        }
    }

    @Test
    void corruptLineInTheMiddleStopsTheOpenNamingTheLine() throws IOException {
        try (Journal j = Journal.open(dir, e -> { })) {
            j.append(everyKind().subList(0, 1), 1);
        }
        Path file = dir.resolve(Journal.FILE_NAME);
        Files.write(file, "not json\n".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertFalse(e.retriable(), "a damaged journal waits for an operator");
        // The failed open must not keep the lock.
        Files.write(file, List.of(Files.readAllLines(file).get(0)));
        try (Journal j = Journal.open(dir, x -> { })) {
            assertEquals(1, j.lastSeq());
        }
    }

    @Test
    void gapInSequenceNumbersIsRefused() throws IOException {
        Path file = dir.resolve(Journal.FILE_NAME);
        Files.writeString(file, "{\"seq\":1,\"ts\":1,\"event\":{\"type\":\"SIGNAL_SENT\",\"dataset\":\"d\",\"signalId\":\"s\"}}\n"
                + "{\"seq\":3,\"ts\":1,\"event\":{\"type\":\"SIGNAL_SENT\",\"dataset\":\"d\",\"signalId\":\"s\"}}\n");
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }));
        assertTrue(e.getMessage().contains("expected 2"), e.getMessage());
    }

    @Test
    void unknownEventTypeIsRefused() throws IOException {
        Files.writeString(dir.resolve(Journal.FILE_NAME), "{\"seq\":1,\"ts\":1,\"event\":{\"type\":\"FROM_THE_FUTURE\"}}\n");
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }));
        assertTrue(e.getMessage().contains("FROM_THE_FUTURE"), e.getMessage());
    }

    @Test
    void secondSupervisorOnTheSameJournalIsRefused() throws IOException {
        try (Journal first = Journal.open(dir, e -> { })) {
            assertEquals(0, first.lastSeq());
            JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }));
            assertTrue(e.getMessage().contains("in use by another supervisor"), e.getMessage());
            assertTrue(e.getMessage().contains("is held by process " + ProcessHandle.current().pid() + " on "),
                    "the lock names its holder: " + e.getMessage());
        }
        Journal.open(dir, e -> { }).close();
    }

    @Test
    void closedJournalRefusesAppends() throws IOException {
        Journal j = Journal.open(dir, e -> { });
        j.close();
        j.close();
        assertThrows(JournalException.class, () -> j.append(everyKind().subList(0, 1), 1));
    }
}
