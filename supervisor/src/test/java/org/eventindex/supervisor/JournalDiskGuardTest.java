package org.eventindex.supervisor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link JournalDiskGuard} on its own: the threshold, the state it reports, a disk it cannot read, the off switch. */
class JournalDiskGuardTest {

    @Test
    void lowBelowTheMinimumAndRoomAgainAtIt() {
        AtomicLong free = new AtomicLong(100);
        JournalDiskGuard g = new JournalDiskGuard(free::get, 100, Duration.ofMillis(1), "/j");
        assertTrue(g.check());
        assertTrue(g.low().isEmpty());
        assertEquals(100, g.lastFreeBytes());
        free.set(99);
        assertFalse(g.check());
        assertEquals("the journal disk /j has 99 bytes free, below supervisor.journal.min.free.bytes=100: consuming"
                + " paused, messages wait in the broker", g.low().orElseThrow());
        free.set(100);
        assertTrue(g.check());
        assertTrue(g.low().isEmpty());
    }

    @Test
    void aHeldMessageGoesOnWhenTheDiskHasRoomOrFailsWhenStopping() throws InterruptedException {
        AtomicInteger looks = new AtomicInteger();
        // room from the third look on
        JournalDiskGuard g = new JournalDiskGuard(() -> looks.incrementAndGet() >= 3 ? 10 : 0, 10,
                Duration.ofMillis(1), "/j");
        g.awaitRoom(() -> false);
        assertEquals(3, looks.get());
        JournalDiskGuard full = new JournalDiskGuard(() -> 0, 10, Duration.ofMillis(1), "/j");
        InterruptedException e = assertThrows(InterruptedException.class, () -> full.awaitRoom(() -> true));
        assertTrue(e.getMessage().startsWith("stopping while the journal disk /j has 0 bytes free"), e.getMessage());
    }

    @Test
    void theRealProbeWaitsForTheJournalDirectoryToExist(@TempDir Path dir) throws IOException {
        Path journal = dir.resolve("journal");
        JournalDiskGuard.FreeSpace disk = JournalDiskGuard.FreeSpace.of(journal);
        assertThrows(NoSuchFileException.class, disk::usableBytes);
        Files.createDirectories(journal);
        long free = disk.usableBytes();
        assertTrue(free > 0 && free <= Files.getFileStore(dir).getTotalSpace(), "usable bytes " + free);
    }

    @Test
    void aDiskThatCannotBeReadDoesNotStopConsumingAndZeroTurnsTheCheckOff() {
        JournalDiskGuard unreadable = new JournalDiskGuard(() -> {
            throw new IOException("no such file system");
        }, 10, Duration.ofMillis(1), "/j");
        assertTrue(unreadable.check());
        assertTrue(unreadable.low().isEmpty());
        AtomicInteger looks = new AtomicInteger();
        JournalDiskGuard off = new JournalDiskGuard(() -> {
            looks.incrementAndGet();
            return 0;
        }, 0, Duration.ofMillis(1), "/j");
        assertTrue(off.check());
        assertEquals(0, looks.get(), "the disk is not even looked at");
        assertEquals(-1, off.lastFreeBytes());
        assertThrows(IllegalArgumentException.class, () -> new JournalDiskGuard(() -> 0, -1, Duration.ZERO, "/j"));
    }
}
