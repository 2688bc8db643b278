package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * {@code /progress}: each live dataset's stage times and, for one not done, an estimate of when a consumer will have
 * loaded it (queryable), from the queue ahead of it and the consumers' measured rate.
 *
 * <p>The estimate is a list schedule: each of the {@code consumers} live consumers (heard by heartbeat, not missing)
 * is busy until the dataset it holds is done, at {@code takenAt + events / rate} (at least now); the signalled
 * datasets no consumer holds are then given, in signal order, to the consumer free first, each taking
 * {@code events / rate}. The rate is events loaded per second of consumer work over the last {@value #RATE_REPORTS}
 * DONE reports (a moving average; one consumer's speed, since each report is one consumer's time). A dataset still
 * collecting, held or failed has no estimate: its basis says what it waits for.
 */
record DatasetProgress(Rate rate, List<Entry> datasets) {
    /** How many of the latest DONE reports the rate averages. */
    static final int RATE_REPORTS = 10;

    /**
     * @param eventsPerSecond events one consumer loads per second of work, null before any DONE report
     * @param reports         the DONE reports averaged
     * @param consumers       live consumers (heard by heartbeat and not missing)
     */
    record Rate(Double eventsPerSecond, int reports, int consumers, String basis) {
    }

    /**
     * One dataset's stages at the supervisor, times null when not reached.
     *
     * @param completeAt      every file had its object: the signal was planned
     * @param signalledAt     the broker accepted the signal
     * @param takenAt         a consumer started on it: its busy heartbeat's {@code busySince}, or for a report the
     *                        report's time minus its duration
     * @param doneAt          the consumer reported it loaded
     * @param position        among the signalled datasets no consumer holds, 0 for the next one taken; null otherwise
     * @param eventsAhead     events of the datasets ahead of it (held or waiting) still to load; null when not queued
     * @param queryableAt     the estimate, null when there is none (the basis says why); {@code doneAt} once done
     */
    record Entry(String dataset, CollectionState state, int expectedFiles, int filesWithCandidate, long expectedEvents,
                 @JsonSerialize(using = ToStringSerializer.class) Instant firstObjectAt,
                 @JsonSerialize(using = ToStringSerializer.class) Instant completeAt,
                 @JsonSerialize(using = ToStringSerializer.class) Instant signalledAt,
                 @JsonSerialize(using = ToStringSerializer.class) Instant takenAt,
                 @JsonSerialize(using = ToStringSerializer.class) Instant doneAt,
                 String consumer, Integer position, Long eventsAhead,
                 @JsonSerialize(using = ToStringSerializer.class) Instant queryableAt, Double seconds, String basis) {
    }

    /** What the estimate needs of one dataset; times epoch ms, -1 when unset. */
    record Input(String dataset, CollectionState state, int expectedFiles, int filesWithCandidate, long expectedEvents,
                 long firstObjectAt, long completeAt, long signalledAt, long takenAt, long doneAt, String consumer,
                 String failure) {
    }

    /** One DONE report: events loaded in {@code millis} of consumer work. */
    record Report(long reportedAt, long events, long millis) {
    }

    /**
     * The progress of {@code datasets} at {@code now}.
     *
     * @param reports   DONE reports, any order (the latest {@value #RATE_REPORTS} are averaged)
     * @param consumers live consumers
     */
    static DatasetProgress of(List<Input> datasets, List<Report> reports, int consumers, long now) {
        Rate rate = rate(reports, consumers);
        Double r = rate.eventsPerSecond();
        List<Input> held = datasets.stream().filter(d -> d.state() == CollectionState.SIGNALLED && d.takenAt() >= 0)
                .toList();
        List<Input> waiting = datasets.stream().filter(d -> (d.state() == CollectionState.SIGNAL_PLANNED
                        || d.state() == CollectionState.SIGNALLED) && d.takenAt() < 0)
                .sorted(Comparator.comparingLong(Input::completeAt).thenComparing(Input::dataset)).toList();
        Map<String, long[]> schedule = new java.util.HashMap<>(); // dataset -> {end ms, position, eventsAhead}
        if (r != null && consumers > 0) {
            PriorityQueue<long[]> free = new PriorityQueue<>(Comparator.comparingLong(a -> a[0])); // {free at, left}
            int idle = Math.max(consumers - held.size(), 0);
            long ahead = 0;
            for (Input d : held) {
                long end = Math.max(now, d.takenAt() + millis(d.expectedEvents(), r));
                long left = Math.round((end - now) / 1000.0 * r);
                schedule.put(d.dataset(), new long[]{end, -1, 0});
                free.add(new long[]{end, left});
                ahead += left;
            }
            for (int i = 0; i < idle; i++) {
                free.add(new long[]{now, 0});
            }
            int position = 0;
            for (Input d : waiting) {
                long[] next = free.poll();
                long end = Math.max(now, next[0]) + millis(d.expectedEvents(), r);
                schedule.put(d.dataset(), new long[]{end, position++, ahead});
                ahead += d.expectedEvents();
                free.add(new long[]{end, d.expectedEvents()});
            }
        }
        List<Entry> out = new ArrayList<>();
        for (Input d : datasets) {
            out.add(entry(d, schedule.get(d.dataset()), rate, now));
        }
        out.sort(Comparator.comparing(Entry::dataset));
        return new DatasetProgress(rate, out);
    }

    private static Entry entry(Input d, long[] s, Rate rate, long now) {
        Instant at = null;
        Double seconds = null;
        Integer position = null;
        Long ahead = null;
        String basis;
        switch (d.state()) {
            case DONE -> {
                at = instant(d.doneAt());
                seconds = 0.0;
                basis = "loaded";
            }
            case COLLECTING -> basis = (d.expectedFiles() >= 0
                    ? (d.expectedFiles() - d.filesWithCandidate()) + " of " + d.expectedFiles()
                    + " files have no object yet"
                    : "waiting for its file list (" + d.filesWithCandidate() + " files have an object)")
                    + ": no estimate before it is complete";
            case HELD -> basis = "held: attempts of a file disagree; waiting for an operator";
            case FAILED_CONSUMER -> basis = "a consumer failed on it" + (d.failure() == null ? ""
                    : " (" + d.failure() + ")") + ": no estimate until it is signalled again";
            default -> {
                if (s == null) {
                    basis = rate.eventsPerSecond() == null ? "no estimate: " + rate.basis()
                            : "no estimate: no live consumer is heard";
                } else {
                    at = Instant.ofEpochMilli(s[0]);
                    seconds = Math.max(0, s[0] - now) / 1000.0;
                    position = s[1] < 0 ? null : (int) s[1];
                    ahead = s[1] < 0 ? null : s[2];
                    String speed = String.format(java.util.Locale.ROOT, "%.0f events/s per consumer (%s)",
                            rate.eventsPerSecond(), rate.basis());
                    basis = s[1] < 0
                            ? "in work at " + d.consumer() + " since " + instant(d.takenAt()) + ": "
                            + d.expectedEvents() + " events at " + speed
                            : "position " + s[1] + " in the queue, " + s[2] + " events ahead of it on "
                            + rate.consumers() + " consumer(s), then its " + d.expectedEvents() + " events at "
                            + speed;
                }
            }
        }
        return new Entry(d.dataset(), d.state(), d.expectedFiles(), d.filesWithCandidate(), d.expectedEvents(),
                instant(d.firstObjectAt()), instant(d.completeAt()), instant(d.signalledAt()), instant(d.takenAt()),
                instant(d.doneAt()), d.consumer(), position, ahead, at, seconds, basis);
    }

    static Rate rate(List<Report> reports, int consumers) {
        List<Report> last = reports.stream().filter(r -> r.millis() > 0)
                .sorted(Comparator.comparingLong(Report::reportedAt).reversed()).limit(RATE_REPORTS).toList();
        if (last.isEmpty()) {
            return new Rate(null, 0, consumers, "no consumer has reported a dataset loaded yet");
        }
        long events = last.stream().mapToLong(Report::events).sum();
        long millis = last.stream().mapToLong(Report::millis).sum();
        return new Rate(events * 1000.0 / millis, last.size(), consumers,
                "the last " + last.size() + " loads: " + events + " events in " + millis / 1000.0 + " s of work");
    }

    private static long millis(long events, double rate) {
        return Math.round(events * 1000.0 / rate);
    }

    private static Instant instant(long millis) {
        return millis < 0 ? null : Instant.ofEpochMilli(millis);
    }
}
