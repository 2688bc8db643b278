package org.eventindex.supervisor.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The takeover's copy of a journal, and the guard a fenced-out writer stops at. */
class JournalHandOverTest {
    @TempDir
    Path dir;

    private static List<JournalEvent> sent(int n) {
        List<JournalEvent> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new JournalEvent.SignalSent("ds", "sig-" + i));
        }
        return out;
    }

    @Test
    void copiesCheckpointAndCompleteLinesLeavingATornTailBehindAndReplaysTheSame() throws IOException {
        Path old = dir.resolve("old");
        try (Journal j = Journal.open(old, 2, (seq, in) -> in.readAllBytes(), e -> { })) {
            j.append(sent(3), 1);
            j.checkpoint(out -> out.write("state".getBytes(StandardCharsets.UTF_8)), 2);
            j.append(sent(2), 3);
        }
        long complete = Files.size(old.resolve(Journal.FILE_NAME));
        Files.writeString(old.resolve(Journal.FILE_NAME), "{\"seq\":6,\"ts\"", StandardOpenOption.APPEND);

        JournalHandOver.Copied c = JournalHandOver.copy(old, dir.resolve("new"));
        assertEquals(complete, c.journalBytes(), "the takeover point: the complete lines");
        assertEquals(13, c.tornBytes());
        assertTrue(c.checkpointBytes() > 0);

        List<Long> replayed = new ArrayList<>();
        long[] restored = {-1};
        try (Journal j = Journal.open(dir.resolve("new"), 2, (seq, in) -> restored[0] = seq,
                e -> replayed.add(e.seq()))) {
            assertEquals(3, restored[0], "the checkpoint came over");
            assertEquals(List.of(4L, 5L), replayed, "the entries after it, not the torn one");
            assertEquals(5, j.lastSeq());
        }
        assertThrows(JournalException.class, () -> JournalHandOver.copy(old, dir.resolve("new")),
                "a target that holds a journal is refused");
    }

    @Test
    void aFailingGuardStopsAnAppendBeforeItWritesAndAfterItsFsync() throws IOException {
        try (Journal j = Journal.open(dir.resolve("j"), e -> { })) {
            j.append(sent(1), 1);
            long size = Files.size(Path.of(j.file()));
            j.guard(() -> {
                throw new IOException("fenced");
            });
            assertEquals("fenced", assertThrows(IOException.class, () -> j.append(sent(1), 2)).getMessage());
            assertEquals(size, Files.size(Path.of(j.file())), "nothing written");
            assertEquals(1, j.lastSeq());

            int[] calls = {0};
            j.guard(() -> {
                if (++calls[0] == 2) {
                    throw new IOException("fenced after the fsync");
                }
            });
            assertThrows(IOException.class, () -> j.append(sent(1), 3));
            assertEquals(2, calls[0], "checked before writing and after the fsync");
        }
    }
}
