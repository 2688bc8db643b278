package org.eventindex.supervisor.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Group commit (decision 0035): {@link Journal#write} then {@link Journal#awaitDurable}, one force for several. */
class JournalGroupCommitTest {
    private static final String DS = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    @TempDir
    Path dir;

    private static JournalEvent event(int i) {
        return new JournalEvent.SignalSent(DS, "signal-" + i);
    }

    @Test
    void oneForceCoversEveryEntryWrittenBeforeIt() throws IOException {
        try (Journal j = Journal.open(dir, e -> { })) {
            long forces = j.forces();
            j.write(List.of(event(1)), 1);
            j.write(List.of(event(2), event(3)), 2);
            List<JournalEntry> last = j.write(List.of(event(4)), 3);
            assertEquals(4, last.get(0).seq());
            j.awaitDurable(4);
            assertEquals(forces + 1, j.forces(), "one force for three writes");
            j.awaitDurable(2);
            j.awaitDurable(4);
            assertEquals(forces + 1, j.forces(), "entries already on disk need no force");
            j.append(List.of(event(5)), 4);
            assertEquals(forces + 2, j.forces(), "append forces its own entries");
        }
        List<JournalEntry> replayed = new ArrayList<>();
        Journal.open(dir, replayed::add).close();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), replayed.stream().map(JournalEntry::seq).toList());
    }

    @Test
    void concurrentCallersShareForcesAndEveryEntryIsReplayedInOrder() throws Exception {
        int threads = 8;
        int each = 100;
        long forces;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (Journal j = Journal.open(dir, e -> { })) {
            List<Callable<Void>> callers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                callers.add(() -> {
                    for (int i = 0; i < each; i++) {
                        List<JournalEntry> written = j.write(List.of(event(thread * each + i)), i);
                        j.awaitDurable(written.get(0).seq());
                        // returned: the entry is covered by a force that started after it was written
                        assertTrue(j.forces() >= 1);
                    }
                    return null;
                });
            }
            for (Future<Void> f : pool.invokeAll(callers)) {
                f.get();
            }
            forces = j.forces();
            assertEquals((long) threads * each, j.lastSeq());
        } finally {
            pool.shutdownNow();
        }
        assertTrue(forces <= (long) threads * each, "at most one force per append: " + forces);
        List<JournalEntry> replayed = new ArrayList<>();
        Journal.open(dir, replayed::add).close();
        assertEquals(threads * each, replayed.size());
        for (int i = 0; i < replayed.size(); i++) {
            assertEquals(i + 1, replayed.get(i).seq());
        }
    }

    @Test
    void entriesWrittenButNotAwaitedReachTheDiskAtClose() throws IOException {
        try (Journal j = Journal.open(dir, e -> { })) {
            j.write(List.of(event(1), event(2)), 1);
        }
        List<JournalEntry> replayed = new ArrayList<>();
        Journal.open(dir, replayed::add).close();
        assertEquals(2, replayed.size());
    }

    @Test
    void aCheckpointMakesTheEntriesItHoldsDurable() throws IOException {
        try (Journal j = Journal.open(dir, 0, (seq, in) -> { }, e -> { })) {
            j.write(List.of(event(1), event(2)), 1);
            long forces = j.forces();
            assertTrue(j.checkpoint(out -> out.write("{}".getBytes()), 2).isPresent());
            j.awaitDurable(2);
            assertEquals(forces, j.forces(), "the checkpoint holds entries 1-2: no force of the journal needed");
            j.write(List.of(event(3)), 3);
            j.awaitDurable(3);
            assertEquals(forces + 1, j.forces());
        }
    }

    @Test
    void aClosedJournalRefusesWrites() throws IOException {
        Journal j = Journal.open(dir, e -> { });
        j.close();
        JournalException e = assertThrows(JournalException.class, () -> j.write(List.of(event(1)), 1));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
