package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import org.eventindex.message.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The journal's format rule (decision 0055): lines of 0.1.0, of this release, and of newer releases. */
class JournalFormatTest {
    private static final String DS = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    /** Lines as release 0.1.0 wrote them: no "v", no "ignorable". */
    private static final String RELEASE_0_1_0 = """
            {"seq":1,"ts":1000,"event":{"type":"SIGNAL_SENT","dataset":"%1$s","signalId":"sig-1"}}
            {"seq":2,"ts":1001,"event":{"type":"DATASET_DELETED","dataset":"%1$s","reason":"test"}}
            {"seq":3,"ts":1002,"event":{"type":"MESSAGE_REJECTED","queue":"/queue/q","messageId":"m","reason":"BAD_JSON","detail":"d","dataset":null,"body":"{"}}
            """.formatted(DS);

    @TempDir
    Path dir;

    @Test
    void everyEventTypeDeclaresAFormatThisSupervisorReads() {
        for (JsonSubTypes.Type t : JournalEvent.class.getAnnotation(JsonSubTypes.class).value()) {
            JournalFormat.Event rule = t.value().getAnnotation(JournalFormat.Event.class);
            assertNotNull(rule, t.name() + " has no @JournalFormat.Event");
            assertTrue(rule.version() >= 1 && rule.version() <= JournalFormat.VERSION, t.name() + " version "
                    + rule.version() + " is not one this supervisor reads (1 to " + JournalFormat.VERSION + ")");
        }
        assertEquals(JournalEvent.class.getPermittedSubclasses().length,
                JournalEvent.class.getAnnotation(JsonSubTypes.class).value().length, "every type has a JSON name");
    }

    @Test
    void linesCarryTheirVersionAndOnlyIgnorableOnesSaySo() throws IOException {
        try (Journal j = Journal.open(dir, e -> { })) {
            j.append(List.of(new JournalEvent.SignalSent(DS, "sig-1"),
                    new JournalEvent.MessageRejected("/queue/q", "m", "BAD_JSON", "d", null, "{")), 1000);
        }
        List<String> lines = Files.readAllLines(dir.resolve(Journal.FILE_NAME));
        assertTrue(lines.get(0).startsWith("{\"v\":1,\"seq\":1,\"ts\":1000,\"event\":{\"type\":\"SIGNAL_SENT\""),
                lines.get(0));
        assertTrue(lines.get(1).startsWith("{\"v\":1,\"seq\":2,\"ts\":1000,\"ignorable\":true,\"event\":"), lines.get(1));
    }

    @Test
    void linesOfRelease010WithoutAVersionAreVersion1() throws IOException {
        Files.writeString(dir.resolve(Journal.FILE_NAME), RELEASE_0_1_0);
        List<JournalEntry> replayed = new ArrayList<>();
        try (Journal j = Journal.open(dir, replayed::add)) {
            assertEquals(3, j.replaySummary().entries());
        }
        assertEquals(List.of(1, 1, 1), replayed.stream().map(JournalEntry::version).toList());
        assertEquals(new JournalEvent.DatasetDeleted(DS, "test"), replayed.get(1).event());
        assertFalse(replayed.get(2).ignorable(), "0.1.0 wrote no ignorable flag");
    }

    @Test
    void linesOfThisVersionWithFieldsItDoesNotKnowReplay() throws IOException {
        Files.writeString(dir.resolve(Journal.FILE_NAME), """
                {"v":1,"seq":1,"ts":1000,"operator":"alice","event":{"type":"SIGNAL_SENT","dataset":"%s","signalId":"s","by":"x"}}
                """.formatted(DS));
        List<JournalEntry> replayed = new ArrayList<>();
        try (Journal j = Journal.open(dir, replayed::add)) {
            assertEquals(1, j.lastSeq());
        }
        assertEquals(new JournalEvent.SignalSent(DS, "s"), replayed.get(0).event());
    }

    @Test
    void newerIgnorableLinesAreSkippedAndTheSequenceGoesOn() throws IOException {
        Files.writeString(dir.resolve(Journal.FILE_NAME), RELEASE_0_1_0 + """
                {"v":2,"seq":4,"ts":1003,"ignorable":true,"event":{"type":"OPERATOR_NOTE","text":"hello"}}
                {"v":2,"seq":5,"ts":1004,"ignorable":true,"event":{"type":"SIGNAL_SENT","dataset":"%s","signalId":"s2"}}
                {"v":1,"seq":6,"ts":1005,"event":{"type":"SIGNAL_SENT","dataset":"%1$s","signalId":"s3"}}
                """.formatted(DS));
        List<JournalEntry> replayed = new ArrayList<>();
        try (Journal j = Journal.open(dir, replayed::add)) {
            assertEquals(List.of(1L, 2L, 3L, 6L), replayed.stream().map(JournalEntry::seq).toList());
            assertEquals(6, j.lastSeq());
            assertEquals(4, j.replaySummary().entries(), "entries applied");
            assertEquals(7, j.append(List.of(new JournalEvent.SignalSent(DS, "s4")), 2000).get(0).seq());
        }
    }

    @Test
    void newerLinesNotIgnorableStopTheStartSayingBothVersionsAndWhatToDo() throws IOException {
        for (String line : List.of(
                "{\"v\":2,\"seq\":4,\"ts\":1003,\"event\":{\"type\":\"OBJECTS_RECONCILED\",\"dataset\":\"x\"}}",
                "{\"v\":2,\"seq\":4,\"ts\":1003,\"event\":{\"type\":\"SIGNAL_SENT\",\"dataset\":\"x\",\"signalId\":\"s\"}}")) {
            Files.writeString(dir.resolve(Journal.FILE_NAME), RELEASE_0_1_0 + line + "\n");
            JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }).close());
            String type = Json.tree(line.getBytes(StandardCharsets.UTF_8)).at("/event/type").asText();
            assertTrue(e.getMessage().contains("line 4 (byte offset " + RELEASE_0_1_0.length() + "), entry 4, event"
                    + " type " + type + ", not marked ignorable, has format version 2; this supervisor (eventindex "),
                    e.getMessage());
            assertTrue(e.getMessage().contains("reads format versions up to 1: it was written by a newer release;"
                    + " upgrade this supervisor to the writer's release or later (docs/compatibility.md)"),
                    e.getMessage());
        }
    }

    @Test
    void anUnknownTypeAtAVersionThisSupervisorReadsIsAnotherBuildsLine() throws IOException {
        Files.writeString(dir.resolve(Journal.FILE_NAME), RELEASE_0_1_0
                + "{\"v\":1,\"seq\":4,\"ts\":1003,\"event\":{\"type\":\"MYSTERY\"}}\n");
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }).close());
        assertTrue(e.getMessage().contains("event type MYSTERY, not marked ignorable, has format version 1, which"
                + " this supervisor reads, but an event type it does not know"), e.getMessage());
    }

    @Test
    void aDamagedLineIsStillDamage() throws IOException {
        Files.writeString(dir.resolve(Journal.FILE_NAME), RELEASE_0_1_0
                + "{\"v\":\"two\",\"seq\":4,\"ts\":1003,\"event\":{\"type\":\"MYSTERY\"}}\n");
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }).close());
        assertTrue(e.getMessage().contains("line 4") && e.getMessage().contains("is not a valid entry: field 'v'"
                + " (format version) is \"two\""), e.getMessage());
    }

    @Test
    void aCheckpointWhoseTrailerIsOfANewerFormatIsRefusedWithBothVersions() throws IOException {
        try (Journal j = Journal.open(dir, 0, (seq, in) -> { }, e -> { })) {
            j.append(List.of(new JournalEvent.SignalSent(DS, "sig-1")), 1000);
            j.checkpoint(out -> out.write("{}".getBytes(StandardCharsets.UTF_8)), 1001);
        }
        Path checkpoint = dir.resolve(CheckpointFile.NAME);
        String written = Files.readString(checkpoint);
        assertTrue(written.contains("{\"checkpoint\":1,"), written);
        Files.writeString(checkpoint, written.replace("{\"checkpoint\":1,", "{\"checkpoint\":2,"));
        JournalException e = assertThrows(JournalException.class,
                () -> Journal.open(dir, 0, (seq, in) -> { }, x -> { }).close());
        assertTrue(e.getMessage().startsWith("checkpoint " + checkpoint + " (its trailer) has format version 2; this"
                + " supervisor (eventindex "), e.getMessage());
        assertTrue(e.getMessage().endsWith("reads format versions up to 1: it was written by a newer release; upgrade"
                + " this supervisor to the writer's release or later (docs/compatibility.md)"), e.getMessage());
    }
}
