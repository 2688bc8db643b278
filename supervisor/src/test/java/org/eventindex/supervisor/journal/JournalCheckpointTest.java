package org.eventindex.supervisor.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checkpoints of the journal: the state as of entry N in {@code supervisor.checkpoint}, the entries up to N moved to an
 * archived segment, and a start that restores the checkpoint and replays only what follows, whatever point a crash
 * interrupted the checkpoint at.
 */
class JournalCheckpointTest {
    @TempDir
    Path dir;

    /** A stand-in for the supervisor's state: the sequence numbers folded so far. */
    private static final class Folded {
        final List<Long> seqs = new ArrayList<>();
        long restoredSeq = -1;
        String restoredBody;

        void restore(long seq, InputStream in) throws IOException {
            restoredSeq = seq;
            restoredBody = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }

        Journal open(Path dir, int keep) throws IOException {
            return Journal.open(dir, keep, this::restore, e -> seqs.add(e.seq()));
        }
    }

    private static void append(Journal j, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            j.append(List.of(new JournalEvent.SignalSent("d", "s" + j.lastSeq())), 1000 + j.lastSeq());
        }
    }

    private static Journal.StateWriter body(String text) {
        return out -> out.write(text.getBytes(StandardCharsets.UTF_8));
    }

    private List<Path> archives() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().matches("supervisor\\.journal\\.\\d{12}"))
                    .sorted().toList();
        }
    }

    @Test
    void startRestoresTheCheckpointAndReplaysOnlyTheEntriesAfterIt() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 5);
            Journal.CheckpointResult r = j.checkpoint(body("{\"state\":\"as of 5\"}"), 42).orElseThrow();
            assertEquals(5, r.seq());
            assertEquals(Files.size(dir.resolve(Journal.FILE_NAME)), 0, "the journal starts a new file");
            assertEquals(List.of(dir.resolve("supervisor.journal.000000000005")), archives());
            assertEquals(archives().get(0).getFileName().toString(), r.archived());
            assertEquals(0, j.entriesSinceCheckpoint());
            append(j, 3);
            assertEquals(8, j.lastSeq());
            assertEquals(3, j.entriesSinceCheckpoint());
        }
        Folded f = new Folded();
        try (Journal j = f.open(dir, 5)) {
            assertEquals(5, f.restoredSeq);
            assertEquals("{\"state\":\"as of 5\"}", f.restoredBody);
            assertEquals(List.of(6L, 7L, 8L), f.seqs);
            assertEquals(new Journal.ReplaySummary(3, 0, 5, 0), j.replaySummary());
            assertEquals(9, j.append(List.of(new JournalEvent.SignalSent("d", "x")), 9).get(0).seq());
        }
        // The archived segment is a journal of its own: entries 1..5, readable by the same code (and by jq).
        Path alone = Files.createDirectory(dir.resolve("alone"));
        Files.copy(archives().get(0), alone.resolve(Journal.FILE_NAME));
        List<Long> seqs = new ArrayList<>();
        Journal.open(alone, e -> seqs.add(e.seq())).close();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), seqs);
    }

    @Test
    void crashAfterTheCheckpointButBeforeTheNewFileSkipsTheEntriesItHolds() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 4);
            j.checkpoint(body("four"), 1).orElseThrow();
        }
        // What a crash between writing the checkpoint and moving the journal aside leaves: the old file in place.
        Files.move(archives().get(0), dir.resolve(Journal.FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
        Folded f = new Folded();
        try (Journal j = f.open(dir, 5)) {
            assertEquals(4, f.restoredSeq);
            assertEquals(List.of(), f.seqs);
            assertEquals(new Journal.ReplaySummary(0, 0, 4, 4), j.replaySummary());
            assertEquals(5, j.append(List.of(new JournalEvent.SignalSent("d", "x")), 9).get(0).seq());
            j.checkpoint(body("five"), 2).orElseThrow();
        }
        Folded again = new Folded();
        try (Journal j = again.open(dir, 5)) {
            assertEquals("five", again.restoredBody);
            assertEquals(5, j.lastSeq());
        }
    }

    @Test
    void crashWhileWritingTheCheckpointKeepsThePreviousOne() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 2);
            j.checkpoint(body("two"), 1).orElseThrow();
            append(j, 2);
        }
        // A crash in the middle of the next checkpoint leaves its temporary file: ignored and removed.
        Files.writeString(dir.resolve(CheckpointFile.TEMP_NAME), "{\"half\":");
        Folded f = new Folded();
        try (Journal j = f.open(dir, 5)) {
            assertEquals("two", f.restoredBody);
            assertEquals(List.of(3L, 4L), f.seqs);
            assertFalse(Files.exists(dir.resolve(CheckpointFile.TEMP_NAME)));
        }
    }

    @Test
    void aFailingStateWriterLeavesTheJournalAsItWas() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 3);
            JournalException e = assertThrows(JournalException.class, () -> j.checkpoint(out -> {
                out.write("partial".getBytes(StandardCharsets.UTF_8));
                throw new IOException("state cannot be written");
            }, 1));
            assertTrue(e.getMessage().contains("entry 3") && e.getMessage().contains("state cannot be written"),
                    e.getMessage());
            assertTrue(e.retriable(), "the journal goes on: a later checkpoint may succeed");
            assertEquals(0, j.checkpointSeq());
            assertFalse(Files.exists(dir.resolve(CheckpointFile.NAME)));
            assertFalse(Files.exists(dir.resolve(CheckpointFile.TEMP_NAME)));
            assertEquals(List.of(), archives());
            append(j, 1);
        }
        Folded f = new Folded();
        f.open(dir, 5).close();
        assertEquals(List.of(1L, 2L, 3L, 4L), f.seqs);
        assertEquals(-1, f.restoredSeq);
    }

    @Test
    void nothingNewSinceTheLastCheckpointWritesNothing() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            assertEquals(Optional.empty(), j.checkpoint(body("empty"), 1));
            append(j, 1);
            assertTrue(j.checkpoint(body("one"), 1).isPresent());
            assertEquals(Optional.empty(), j.checkpoint(body("one again"), 2));
            assertEquals(1, archives().size());
        }
    }

    @Test
    void onlyTheNewestSegmentsAreKept() throws IOException {
        try (Journal j = new Folded().open(dir, 2)) {
            for (int i = 0; i < 4; i++) {
                append(j, 3);
                j.checkpoint(body("c" + i), i).orElseThrow();
            }
        }
        assertEquals(List.of(dir.resolve("supervisor.journal.000000000009"),
                dir.resolve("supervisor.journal.000000000012")), archives());
        try (Journal j = new Folded().open(dir, 0)) {
            append(j, 1);
            j.checkpoint(body("c"), 9).orElseThrow();
        }
        assertEquals(List.of(), archives(), "0 keeps no segment");
    }

    /** A journal of two entries with a checkpoint of {@link #STATE}; returns the checkpoint file. */
    private Path checkpointed() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 2);
            j.checkpoint(body(STATE), 1).orElseThrow();
        }
        return dir.resolve(CheckpointFile.NAME);
    }

    private static final String STATE = "{\"datasets\":[1,2,3]}";

    @Test
    void aDamagedCheckpointStopsTheStartNamingItAndWhy() throws IOException {
        Path file = checkpointed();
        byte[] good = Files.readAllBytes(file);

        byte[] flipped = good.clone();
        flipped[3] ^= 0x01;
        Files.write(file, flipped);
        JournalException e = assertThrows(JournalException.class, () -> new Folded().open(dir, 5));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("SHA-256"), e.getMessage());

        Files.write(file, java.util.Arrays.copyOf(good, good.length - 10));
        e = assertThrows(JournalException.class, () -> new Folded().open(dir, 5));
        assertTrue(e.getMessage().contains("damaged") && e.getMessage().contains("trailer"), e.getMessage());

        Files.write(file, good);
        Folded f = new Folded();
        f.open(dir, 5).close();
        assertArrayEquals(STATE.getBytes(StandardCharsets.UTF_8), f.restoredBody.getBytes(StandardCharsets.UTF_8),
                "the failed opens released the lock");
    }

    @Test
    void aReaderThatCannotReadADamagedBodyIsToldTheBodyIsDamaged() throws IOException {
        Path file = checkpointed();
        byte[] bytes = Files.readAllBytes(file);
        bytes[1] = '#';
        Files.write(file, bytes);
        Journal.StateReader parser = (seq, in) -> {
            if (new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("#")) {
                throw new IOException("unexpected character '#'");
            }
        };
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, 5, parser, x -> { }));
        assertTrue(e.getMessage().contains("damaged") && e.getMessage().contains("SHA-256"), e.getMessage());
        assertEquals("unexpected character '#'", e.getSuppressed()[0].getMessage());

        bytes[1] = '"';
        Files.write(file, bytes);
        Journal.StateReader refusing = (seq, in) -> {
            throw new IOException("format 9 is not known");
        };
        e = assertThrows(JournalException.class, () -> Journal.open(dir, 5, refusing, x -> { }));
        assertTrue(e.getMessage().contains("digest intact) cannot be restored: format 9 is not known")
                && e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void aJournalThatDoesNotContinueTheCheckpointIsRefused() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 3);
            j.checkpoint(body("three"), 1).orElseThrow();
            append(j, 2);
        }
        // Without its checkpoint, the journal (entries 4 and 5) misses 1 to 3.
        Path checkpoint = dir.resolve(CheckpointFile.NAME);
        Path aside = dir.resolve("aside");
        Files.move(checkpoint, aside);
        JournalException e = assertThrows(JournalException.class, () -> new Folded().open(dir, 5));
        assertTrue(e.getMessage().contains("starts at entry 4") && e.getMessage().contains("1 to 3"), e.getMessage());
        // An older journal file (entries 1..3 only) under a checkpoint of entry 3 plus entries 4..5: 4..5 are lost.
        Files.move(aside, checkpoint);
        Files.copy(archives().get(0), dir.resolve(Journal.FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
        try (Journal j = new Folded().open(dir, 5)) {
            assertEquals(3, j.lastSeq(), "a journal ending exactly at the checkpoint is a crash before the new file");
        }
        Files.writeString(dir.resolve(Journal.FILE_NAME), Files.readAllLines(archives().get(0)).get(0) + "\n");
        e = assertThrows(JournalException.class, () -> new Folded().open(dir, 5));
        assertTrue(e.getMessage().contains("ends at entry 1") && e.getMessage().contains("older than the checkpoint"),
                e.getMessage());
    }

    @Test
    void aReaderWithoutCheckpointsRefusesAJournalThatHasOne() throws IOException {
        try (Journal j = new Folded().open(dir, 5)) {
            append(j, 1);
            j.checkpoint(body("one"), 1).orElseThrow();
        }
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(dir, x -> { }));
        assertTrue(e.getMessage().contains("checkpoint"), e.getMessage());
    }
}
