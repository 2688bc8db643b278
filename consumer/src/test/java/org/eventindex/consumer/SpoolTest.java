package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.spb.SpbRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpoolTest {
    @TempDir
    Path dir;

    private static void fill(Spool spool, int events) throws IOException {
        spool.append(new SpbRecord.BeginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1).setAMITag("a")
                .setTrigStream("s").setProjName("p").setGuid("G").build(), 0));
        for (int i = 0; i < events; i++) {
            spool.append(new SpbRecord.Event(TestSpb.event(i), 0));
        }
        spool.append(new SpbRecord.EndGuid(EndGUID_p1.newBuilder().setEndProcTime(2).setNentries(events).build(), 0));
        spool.seal();
    }

    private static List<SpbRecord> readAll(Spool spool) throws IOException {
        List<SpbRecord> out = new ArrayList<>();
        spool.read(out::add);
        return out;
    }

    private long files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void keepsSmallSpoolsInMemoryWithinTheBudget() throws IOException {
        Spool.MemoryBudget budget = new Spool.MemoryBudget(1 << 20);
        try (Spool spool = new Spool(dir, "obj", budget)) {
            fill(spool, 50);
            assertFalse(spool.onDisk());
            assertEquals((1 << 20) - spool.bytes(), budget.available());
            List<SpbRecord> records = readAll(spool);
            assertEquals(52, records.size());
            assertInstanceOf(SpbRecord.BeginGuid.class, records.get(0));
            assertEquals(TestSpb.event(49), ((SpbRecord.Event) records.get(50)).message());
            assertInstanceOf(SpbRecord.EndGuid.class, records.get(51));
        }
        assertEquals(1 << 20, budget.available(), "closing returns the memory");
    }

    @Test
    void movesToDiskWhenTheBudgetIsSpentAndDeletesTheFileOnClose() throws IOException {
        Spool.MemoryBudget budget = new Spool.MemoryBudget(500);
        Spool spool = new Spool(dir, "obj", budget);
        fill(spool, 100);
        assertTrue(spool.onDisk());
        assertEquals(500, budget.available(), "memory is returned once the records are on disk");
        assertEquals(1, files());
        assertEquals(102, readAll(spool).size());
        spool.close();
        assertEquals(0, files());
    }

    @Test
    void cannotBeReadBeforeItIsSealedNorWrittenAfter() throws IOException {
        try (Spool spool = new Spool(dir, "obj", new Spool.MemoryBudget(0))) {
            assertThrows(IllegalStateException.class, () -> spool.read(r -> {
            }));
            spool.seal();
            assertThrows(IllegalStateException.class, () -> spool.append(new SpbRecord.Event(TestSpb.event(1), 0)));
        }
    }
}
