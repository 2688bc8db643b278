package org.eventindex.supervisor;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatasetProgressTest {
    private static final long NOW = 1_000_000_000L;

    private static DatasetProgress.Input in(String name, CollectionState state, long events, long completeAt,
                                            long takenAt) {
        return new DatasetProgress.Input(name, state, 5, state == CollectionState.COLLECTING ? 3 : 5, events, 1,
                completeAt, completeAt < 0 ? -1 : completeAt + 1, takenAt, state == CollectionState.DONE ? NOW - 5 : -1,
                takenAt >= 0 ? "c1" : null, state == CollectionState.FAILED_CONSUMER ? "object gone" : null);
    }

    @Test
    void rateIsTheMovingAverageOfTheLatestDoneReports() {
        List<DatasetProgress.Report> reports = new java.util.ArrayList<>();
        reports.add(new DatasetProgress.Report(1, 1_000_000, 1_000)); // oldest: outside the last 10
        for (int i = 0; i < 10; i++) {
            reports.add(new DatasetProgress.Report(100 + i, 2_000, 1_000));
        }
        DatasetProgress.Rate r = DatasetProgress.rate(reports, 2);
        assertEquals(2_000.0, r.eventsPerSecond(), 1e-9);
        assertEquals(10, r.reports());
        assertNull(DatasetProgress.rate(List.of(), 2).eventsPerSecond());
    }

    @Test
    void queueIsScheduledOnTheLiveConsumersInSignalOrder() {
        // 1,000 events/s per consumer, 2 consumers: one holds A (10,000 events, taken 4 s ago: 6 s left), the other
        // is idle; B (signalled first) goes to the idle one now, C to whichever frees first.
        List<DatasetProgress.Report> reports = List.of(new DatasetProgress.Report(NOW - 10, 5_000, 5_000));
        DatasetProgress p = DatasetProgress.of(List.of(
                in("A", CollectionState.SIGNALLED, 10_000, NOW - 9_000, NOW - 4_000),
                in("C", CollectionState.SIGNALLED, 3_000, NOW - 2_000, -1),
                in("B", CollectionState.SIGNAL_PLANNED, 2_000, NOW - 3_000, -1),
                in("D", CollectionState.COLLECTING, 0, -1, -1),
                in("E", CollectionState.FAILED_CONSUMER, 7, NOW - 8_000, -1),
                in("F", CollectionState.DONE, 7, NOW - 8_000, NOW - 7_000)), reports, 2, NOW);
        Map<String, DatasetProgress.Entry> by = p.datasets().stream()
                .collect(Collectors.toMap(DatasetProgress.Entry::dataset, Function.identity()));
        assertEquals(6.0, by.get("A").seconds(), 1e-9);
        assertNull(by.get("A").position());
        assertEquals(2.0, by.get("B").seconds(), 1e-9); // idle consumer: starts now
        assertEquals(0, by.get("B").position());
        assertEquals(6_000L, by.get("B").eventsAhead()); // what A has left
        assertEquals(5.0, by.get("C").seconds(), 1e-9); // after B: 2 s + 3 s, before A frees at 6 s
        assertEquals(1, by.get("C").position());
        assertEquals(Instant.ofEpochMilli(NOW + 5_000), by.get("C").queryableAt());
        assertTrue(by.get("C").basis().contains("position 1 in the queue, 8000 events ahead"), by.get("C").basis());
        assertNull(by.get("D").queryableAt());
        assertTrue(by.get("D").basis().contains("2 of 5 files have no object yet"), by.get("D").basis());
        assertNull(by.get("E").queryableAt());
        assertTrue(by.get("E").basis().contains("object gone"), by.get("E").basis());
        assertEquals(0.0, by.get("F").seconds());
        assertEquals(Instant.ofEpochMilli(NOW - 5), by.get("F").queryableAt());
    }

    @Test
    void noEstimateWithoutARateOrWithoutConsumers() {
        DatasetProgress none = DatasetProgress.of(List.of(in("B", CollectionState.SIGNALLED, 10, NOW, -1)),
                List.of(), 1, NOW);
        assertNull(none.datasets().get(0).queryableAt());
        assertTrue(none.datasets().get(0).basis().contains("no consumer has reported"));
        DatasetProgress idle = DatasetProgress.of(List.of(in("B", CollectionState.SIGNALLED, 10, NOW, -1)),
                List.of(new DatasetProgress.Report(1, 10, 10)), 0, NOW);
        assertTrue(idle.datasets().get(0).basis().contains("no live consumer"));
    }

    @Test
    void jsonHasTheFieldsTheLookupServiceReads() throws Exception {
        // the lookup's DatasetStatuses reads these names from GET /progress: renaming one breaks it
        DatasetProgress p = DatasetProgress.of(List.of(in("A", CollectionState.SIGNALLED, 10, NOW - 9, NOW - 4)),
                List.of(new DatasetProgress.Report(1, 10, 10)), 1, NOW);
        com.fasterxml.jackson.databind.JsonNode tree = org.eventindex.message.Json.tree(
                org.eventindex.message.Json.write(p));
        com.fasterxml.jackson.databind.JsonNode d = tree.get("datasets").get(0);
        for (String field : List.of("dataset", "state", "expectedFiles", "filesWithCandidate", "expectedEvents",
                "firstObjectAt", "completeAt", "takenAt", "doneAt", "consumer", "queryableAt", "basis")) {
            assertTrue(d.has(field), field + " in " + d);
        }
        assertEquals("SIGNALLED", d.get("state").asText());
        assertEquals(Instant.ofEpochMilli(NOW - 4).toString(), d.get("takenAt").asText());
        assertTrue(tree.get("rate").has("eventsPerSecond"), tree.toString());
    }
}
