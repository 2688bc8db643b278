package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console's history: per-minute rows, bounded by days and by datasets; checkpoints old and new. */
class HistoryTest {
    private static final long T0 = 1_764_000_000_000L; // a whole minute
    private static final long MINUTE = 60_000;

    private static TrackedDataset dataset(String name, int objects, int read) {
        TrackedDataset d = new TrackedDataset(name);
        for (int i = 0; i < objects; i++) {
            d.candidates.add(Fixtures.candidate(name + "-" + i, i + 1, Fixtures.guid("G" + i, i, 10)));
        }
        List<SignalObject> selected = d.candidates.subList(0, read).stream()
                .map(c -> new SignalObject(c.url(), c.size(), List.of(), 10)).toList();
        d.signal = new ConsumerSignal(ConsumerSignal.TYPE, "sig-" + name, name, "c", 1, 1, selected, 10L * read, 0);
        return d;
    }

    private static ConsumerReport done(String name, long events, long millis) {
        return new ConsumerReport(ConsumerReport.TYPE, "sig-" + name, name, "consumer-1", ConsumerReport.DONE, "/f",
                events, events, 0, 2, 4096, millis, null, 0, false);
    }

    @Test
    void minutesAddUpAndPerHourConsolidates() {
        History h = new History(2);
        h.object(T0 + 1_000, 1_000);
        h.object(T0 + 59_000, 3_000);
        h.object(T0 + MINUTE, 0);
        h.done(T0 + 61 * MINUTE, dataset("a", 3, 2), done("a", 500, 1_500));
        assertEquals(List.of(new History.Minute(T0, 2, 4_000, 0, 0), new History.Minute(T0 + MINUTE, 1, 0, 0, 0),
                new History.Minute(T0 + 61 * MINUTE, 0, 0, 500, 1)), h.minutes(0));
        assertEquals(List.of(new History.Minute(T0 + 61 * MINUTE, 0, 0, 500, 1)), h.minutes(T0 + 61 * MINUTE + 5));
        long hour = Math.floorDiv(T0, 3_600_000L) * 3_600_000L;
        assertEquals(h.hours().stream().mapToLong(History.Minute::objects).sum(), 3);
        assertTrue(h.hours().get(0).minute() == hour, "per hour from the hour's start");
        assertEquals(List.of(new History.DatasetPoint("a", T0 + 61 * MINUTE, 500, 4096, 1_500, 3, 1, "consumer-1")),
                h.datasets(10));
        assertEquals(1, h.objectSizes().get(0), "0 bytes in bin 0");
        assertEquals(1, h.objectSizes().get(9), "1000 bytes in [512, 1024)");
        assertEquals(1, h.objectSizes().get(11), "3000 bytes in [2048, 4096)");
        assertEquals(12, h.objectSizes().size(), "up to the last non-empty bin");
    }

    @Test
    void olderThanItsDaysAndBeyondItsDatasetsIsDropped() {
        History h = new History(1);
        h.object(T0, 100);
        h.done(T0, dataset("old", 1, 1), done("old", 10, 10));
        long later = T0 + Duration.ofDays(1).toMillis() + MINUTE;
        h.object(later, 100);
        assertEquals(1, h.minutes(0).size(), "only the minute within a day of the newest entry");
        assertEquals(later, h.minutes(0).get(0).minute());
        assertEquals(List.of(), h.datasets(10), "the dataset DONE more than a day before is dropped");
        for (int i = 0; i < History.MAX_DATASETS + 3; i++) {
            h.done(later, dataset("d" + i, 1, 1), done("d" + i, 1, 1));
        }
        assertEquals(History.MAX_DATASETS, h.datasets(Integer.MAX_VALUE).size());
        assertEquals("d3", h.datasets(Integer.MAX_VALUE).get(0).dataset(), "the oldest are dropped first");
        assertThrows(IllegalArgumentException.class, () -> new History(0));
    }

    @Test
    void aCheckpointKeepsItAndOneWrittenBeforeItExistedRestoresAnEmptyHistory() throws IOException {
        SupervisorState state = new SupervisorState();
        state.history().object(T0, 5_000);
        state.history().done(T0 + MINUTE, dataset("a", 2, 1), done("a", 70, 900));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        state.checkpoint().writeTo(out);
        SupervisorState restored = new SupervisorState();
        restored.restore(StateCheckpoint.readFrom(new ByteArrayInputStream(out.toByteArray())));
        assertEquals(state.history(), restored.history());

        String json = out.toString(StandardCharsets.UTF_8);
        int at = json.indexOf(",\"history\":");
        assertTrue(at > 0 && json.endsWith("}}"), json);
        String old = json.substring(0, at) + "}";
        SupervisorState fromOld = new SupervisorState();
        fromOld.restore(StateCheckpoint.readFrom(new ByteArrayInputStream(old.getBytes(StandardCharsets.UTF_8))));
        assertEquals(new History(History.DEFAULT_DAYS), fromOld.history());
    }
}
