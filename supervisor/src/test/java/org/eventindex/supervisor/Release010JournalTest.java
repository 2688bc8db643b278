package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.Json;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compatibility cell "journal and checkpoint of 0.1.0 read by this supervisor" (decision 0055): a journal directory
 * written by release 0.1.0's own supervisor code (an archived segment holding every event type, a checkpoint and the entries after it; how it was made:
 * {@code src/test/resources/compat/0.1.0/README.md}) is restored and replayed by this build into exactly the state
 * 0.1.0 held ({@code state.json}, 0.1.0's own checkpoint of it), and this build goes on appending to it.
 */
class Release010JournalTest {
    private static final String FIXTURE = "/compat/0.1.0/";

    @TempDir
    Path dir;

    private Path copyFixture() throws IOException {
        Path journal = Files.createDirectories(dir.resolve("journal"));
        for (String name : List.of("supervisor.checkpoint", "supervisor.journal")) {
            try (InputStream in = resource(FIXTURE + "journal/" + name)) {
                Files.copy(in, journal.resolve(name));
            }
        }
        return journal;
    }

    private static InputStream resource(String name) {
        return Objects.requireNonNull(Release010JournalTest.class.getResourceAsStream(name), "no resource " + name);
    }

    /** A checkpoint document without the {@code "v"} fields this build adds to the messages it holds. */
    private static JsonNode withoutVersions(JsonNode node) {
        if (node.isObject()) {
            ((ObjectNode) node).remove(FormatVersion.FIELD);
        }
        node.forEach(Release010JournalTest::withoutVersions);
        return node;
    }

    private static JsonNode stateOf(SupervisorState state) throws IOException {
        ByteArrayOutputStream mine = new ByteArrayOutputStream();
        state.checkpoint().writeTo(mine);
        ObjectNode doc = (ObjectNode) withoutVersions(Json.tree(mine.toByteArray()));
        // added after 0.1.0 and empty for a journal that 0.1.0 wrote: the last reconciliation (decision 0054)
        assertTrue(doc.path("reconciliation").isNull(), "no reconciliation in a 0.1.0 journal: " + doc.get("reconciliation"));
        doc.remove("reconciliation");
        // added after 0.1.0 to each delete (decision 0058: what a delete has left) and each answer (who asked): empty
        doc.path("deleted").forEach(d -> withoutEmpty((ObjectNode) d, "stepsLeft", "finishWith"));
        doc.path("answers").forEach(a -> withoutEmpty((ObjectNode) a, "brokerLogin", "claimedUser", "httpUser"));
        return doc;
    }

    private static void withoutEmpty(ObjectNode node, String... addedFields) {
        for (String field : addedFields) {
            JsonNode value = node.path(field);
            assertTrue(value.isNull() || value.isMissingNode() || (value.isArray() && value.isEmpty()),
                    field + " is empty for a 0.1.0 journal: " + value);
            node.remove(field);
        }
    }

    private static JsonNode releasedState() throws IOException {
        try (InputStream in = resource(FIXTURE + "state.json")) {
            return Json.mapper().readTree(in);
        }
    }

    @Test
    void theReleasesCheckpointAndTailReplayToTheStateTheReleaseHeld() throws IOException {
        Path journalDir = copyFixture();
        List<JournalEntry> tail = new ArrayList<>();
        SupervisorState state = new SupervisorState();
        state.beginReplay(); // as a start replays
        try (Journal j = Journal.open(journalDir, 10, StateCheckpoint.restoreInto(state), e -> {
            tail.add(e);
            state.apply(e);
        })) {
            assertEquals(157, j.replaySummary().checkpointSeq(), "the fixture's checkpoint: " + j.replaySummary());
            assertEquals(84, j.replaySummary().entries());
            assertEquals(241, j.lastSeq());
        }
        state.endReplay();
        assertTrue(tail.stream().allMatch(e -> e.version() == 1), "0.1.0's lines are version 1");
        assertEquals(releasedState(), stateOf(state),
                "the state this build rebuilt from 0.1.0's checkpoint and journal differs from the state 0.1.0 held");
    }

    @Test
    void everyLineTheReleaseWroteReplaysToTheStateTheReleaseHeld() throws IOException {
        Path full = Files.createDirectories(dir.resolve("full"));
        Set<String> types = new TreeSet<>();
        StringBuilder all = new StringBuilder();
        for (String name : List.of("supervisor.journal.000000000157", "supervisor.journal")) {
            try (InputStream in = resource(FIXTURE + "journal/" + name)) {
                String lines = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(!lines.contains("\"v\":"), "0.1.0 wrote no format version");
                all.append(lines);
            }
        }
        Files.writeString(full.resolve(Journal.FILE_NAME), all);
        SupervisorState state = new SupervisorState();
        state.beginReplay();
        try (Journal j = Journal.open(full, e -> {
            types.add(TYPE_NAMES.get(e.event().getClass()));
            state.apply(e);
        })) {
            assertEquals(241, j.replaySummary().entries());
        }
        state.endReplay();
        Set<String> released = new TreeSet<>(TYPE_NAMES.values());
        released.removeAll(ADDED_AFTER_0_1_0);
        assertEquals(released, types, "every event type of 0.1.0 in the fixture");
        assertEquals(releasedState(), stateOf(state),
                "the state this build rebuilt from every line 0.1.0 wrote differs from the state 0.1.0 held");
    }

    /** Journal event types that a later version added, which a 0.1.0 journal cannot hold. */
    private static final Set<String> ADDED_AFTER_0_1_0 = Set.of("STATE_RECONCILED");

    private static final java.util.Map<Class<?>, String> TYPE_NAMES = java.util.Arrays.stream(
            JournalEvent.class.getAnnotation(com.fasterxml.jackson.annotation.JsonSubTypes.class).value())
            .collect(java.util.stream.Collectors.toMap(t -> t.value(), t -> t.name()));

    @Test
    void thisBuildAppendsAfterTheReleasesJournal() throws IOException {
        Path journalDir = copyFixture();
        try (Journal j = Journal.open(journalDir, 10, StateCheckpoint.restoreInto(new SupervisorState()), e -> { })) {
            j.append(List.of(new JournalEvent.SignalSent(Fixtures.DATASET, "after-upgrade")), 2_000_000_000_000L);
        }
        List<JournalEntry> replayed = new ArrayList<>();
        try (Journal j = Journal.open(journalDir, 10, StateCheckpoint.restoreInto(new SupervisorState()),
                replayed::add)) {
            assertEquals(242, j.lastSeq());
        }
        JournalEntry appended = replayed.get(replayed.size() - 1);
        assertEquals(1, appended.version());
        assertEquals(new JournalEvent.SignalSent(Fixtures.DATASET, "after-upgrade"), appended.event());
    }
}
