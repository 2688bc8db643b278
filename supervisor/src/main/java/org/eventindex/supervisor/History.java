package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The console's plots' data: a bounded time series folded from the journal like the rest of the state, so it is
 * rebuilt by a replay and kept by a checkpoint ({@link StateCheckpoint#history()}). Per minute of journal time:
 * objects reported (new URLs), their bytes, events written by DONE reports and datasets DONE; per dataset DONE: its
 * size, its consumer's time and its duplicates; and the distribution of object sizes. Minutes and datasets older
 * than {@code days} before the newest entry are dropped, and at most {@link #MAX_DATASETS} datasets are kept, so
 * memory and checkpoint stay bounded (14 days: at most 20,160 minute rows). Not thread-safe: read under the engine's
 * lock.
 */
final class History {
    /** {@code supervisor.history.days} by default. */
    static final int DEFAULT_DAYS = 14;
    /** Datasets DONE kept for the per-dataset plots (the newest ones). */
    static final int MAX_DATASETS = 5_000;
    /** Object size bins: bin i counts sizes in [2^i, 2^(i+1)) bytes (bin 0 also holds 0 and 1 byte). */
    static final int SIZE_BINS = 48;
    private static final long MINUTE = 60_000L;

    /**
     * One minute of journal time.
     *
     * @param minute start of the minute, epoch milliseconds
     */
    record Minute(long minute, long objects, long objectBytes, long events, long datasetsDone) {
        Minute plus(Minute o) {
            return new Minute(minute, objects + o.objects, objectBytes + o.objectBytes, events + o.events,
                    datasetsDone + o.datasetsDone);
        }
    }

    /**
     * A dataset when it went DONE.
     *
     * @param doneAt         epoch milliseconds of its DONE report
     * @param consumerMillis the consumer's time on it (its report's duration)
     * @param objects        objects reported for it
     * @param duplicates     objects reported but not read (retries that won no file, late ones)
     */
    record DatasetPoint(String dataset, long doneAt, long events, long bytes, long consumerMillis, int objects,
                        int duplicates, String consumer) {
    }

    /** What a checkpoint keeps; every list is absent (null) in checkpoints written before the history existed. */
    record Saved(List<Minute> minutes, List<DatasetPoint> datasets, List<Long> objectSizes) {
        Saved {
            minutes = minutes == null ? List.of() : List.copyOf(minutes);
            datasets = datasets == null ? List.of() : List.copyOf(datasets);
            objectSizes = objectSizes == null ? List.of() : List.copyOf(objectSizes);
        }
    }

    private final int days;
    private final TreeMap<Long, Minute> minutes = new TreeMap<>();
    private final Deque<DatasetPoint> datasets = new ArrayDeque<>();
    private final long[] objectSizes = new long[SIZE_BINS];

    History(int days) {
        if (days < 1 || days > 366) {
            throw new IllegalArgumentException("history days must be within 1..366, got " + days);
        }
        this.days = days;
    }

    int days() {
        return days;
    }

    /** A new object (a URL not seen before) reported at {@code ts}. */
    void object(long ts, long size) {
        add(new Minute(floor(ts), 1, Math.max(0, size), 0, 0), ts);
        objectSizes[sizeBin(size)]++;
    }

    /** A dataset's first DONE report, at {@code ts}. */
    void done(long ts, TrackedDataset d, ConsumerReport r) {
        add(new Minute(floor(ts), 0, 0, Math.max(0, r.eventsWritten()), 1), ts);
        int objects = d.objectsReported();
        int read = d.signal == null ? 0 : d.signal.objects().size();
        datasets.addLast(new DatasetPoint(d.name, ts, Math.max(0, r.eventsWritten()), Math.max(0, r.bytesRead()),
                Math.max(0, r.durationMillis()), objects, Math.max(0, objects - read), r.consumer()));
        while (datasets.size() > MAX_DATASETS) {
            datasets.removeFirst();
        }
    }

    static int sizeBin(long size) {
        return size <= 1 ? 0 : Math.min(SIZE_BINS - 1, 63 - Long.numberOfLeadingZeros(size));
    }

    private void add(Minute m, long ts) {
        minutes.merge(m.minute(), m, Minute::plus);
        long oldest = floor(ts) - days * 1440L * MINUTE;
        minutes.headMap(oldest).clear();
        while (!datasets.isEmpty() && datasets.peekFirst().doneAt() < oldest) {
            datasets.removeFirst();
        }
    }

    private static long floor(long ts) {
        return Math.floorDiv(ts, MINUTE) * MINUTE;
    }

    /** The minutes from {@code since} (epoch ms) on, oldest first. */
    List<Minute> minutes(long since) {
        return List.copyOf(minutes.tailMap(floor(since)).values());
    }

    /** Every minute kept, consolidated per hour, oldest first. */
    List<Minute> hours() {
        Map<Long, Minute> hours = new TreeMap<>();
        minutes.values().forEach(m -> {
            long h = Math.floorDiv(m.minute(), 60 * MINUTE) * 60 * MINUTE;
            hours.merge(h, new Minute(h, m.objects(), m.objectBytes(), m.events(), m.datasetsDone()), Minute::plus);
        });
        return List.copyOf(hours.values());
    }

    /** The newest {@code limit} datasets DONE, oldest first. */
    List<DatasetPoint> datasets(int limit) {
        List<DatasetPoint> all = new ArrayList<>(datasets);
        return List.copyOf(all.subList(Math.max(0, all.size() - limit), all.size()));
    }

    /** Object counts per size bin (see {@link #SIZE_BINS}), up to the last non-empty bin. */
    List<Long> objectSizes() {
        int last = SIZE_BINS - 1;
        while (last > 0 && objectSizes[last] == 0) {
            last--;
        }
        List<Long> out = new ArrayList<>(last + 1);
        for (int i = 0; i <= last; i++) {
            out.add(objectSizes[i]);
        }
        return out;
    }

    Saved save() {
        return new Saved(List.copyOf(minutes.values()), List.copyOf(datasets), objectSizes());
    }

    /** Replaces everything by a checkpoint's history (null: a checkpoint written before it existed). */
    void restore(Saved saved) {
        minutes.clear();
        datasets.clear();
        java.util.Arrays.fill(objectSizes, 0);
        if (saved == null) {
            return;
        }
        saved.minutes().forEach(m -> minutes.put(m.minute(), m));
        datasets.addAll(saved.datasets());
        for (int i = 0; i < Math.min(SIZE_BINS, saved.objectSizes().size()); i++) {
            objectSizes[i] = saved.objectSizes().get(i);
        }
    }

    /** Same days and same contents (the checkpoint test compares states field by field). */
    @Override
    public boolean equals(Object o) {
        return o instanceof History h && h.days == days && h.save().equals(save());
    }

    @Override
    public int hashCode() {
        return Objects.hash(days, save());
    }
}
