package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import org.eventindex.message.S3ObjectUrl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Deletes objects that are no longer needed, never before the data is safe:
 * <ul>
 *   <li>every object of a dataset (selected, duplicates, late, invalid) once the dataset has been {@code DONE} (in
 *       HDFS and Kudu, as its consumer reported) for {@code retention}; the deletion is journalled
 *       ({@code OBJECTS_DELETED}) after it happened, so a crash in between only deletes again;</li>
 *   <li>every object left of a dataset an operator deleted ({@code supervisor delete-dataset}), at the next pass;</li>
 *   <li>orphans (objects of the bucket that no producer message ever named) older than {@code orphanRetention};
 *       younger ones are only reported, since their message may still be on its way. An orphan goes only when the
 *       journal accounts for it (decision 0054): the last reconciliation ({@code supervisor rebuild-state}, journal
 *       entry {@code STATE_RECONCILED}) listed it and decided it. Any other is kept, counted
 *       ({@code supervisor_cleanup_orphans_kept}) and named in the log: after a journal restored from a backup it
 *       may be data the journal forgot.</li>
 * </ul>
 * Objects are matched to messages by bucket and key. Runs on the supervisor's background thread.
 */
final class ObjectCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectCleaner.class);

    /** What one pass did. */
    record Report(@JsonSerialize(using = ToStringSerializer.class) Instant at, int datasetsCleaned,
                  int objectsDeleted, int orphansSeen, int orphansDeleted, List<String> orphansWaiting,
                  int orphansKept, List<String> orphansKeptSample, String error) {
    }

    /** Orphans named in the log line and in {@link Report}s, at most. */
    private static final int SAMPLE = 100;

    private final CleanupStore store;
    private final SupervisorEngine engine;
    private final String bucket;
    private final Duration retention;
    private final Duration orphanRetention;
    private final Clock clock;
    private final SupervisorMetrics metrics;
    private volatile Report lastRun;

    ObjectCleaner(CleanupStore store, SupervisorEngine engine, String bucket, Duration retention,
                  Duration orphanRetention, Clock clock, SupervisorMetrics metrics) {
        this.store = Objects.requireNonNull(store, "store is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.bucket = Objects.requireNonNull(bucket, "bucket is null");
        this.retention = Objects.requireNonNull(retention, "retention is null");
        this.orphanRetention = Objects.requireNonNull(orphanRetention, "orphanRetention is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    }

    /** The last pass, or null before the first. */
    Report lastRun() {
        return lastRun;
    }

    void runOnceLogged() {
        try {
            runOnce();
        } catch (IOException | RuntimeException e) {
            metrics.cleanupFailures.inc();
            lastRun = new Report(clock.instant(), 0, 0, 0, 0, List.of(), 0, List.of(), e.getMessage());
            LOG.warn("cleanup of bucket {} failed: {}; retried at the next run", bucket, e.getMessage());
        }
    }

    /** One pass. */
    Report runOnce() throws IOException {
        long now = clock.millis();
        Map<String, List<String>> due = new LinkedHashMap<>();
        Set<String> knownKeys = new HashSet<>();
        Reconciliation[] reconciled = new Reconciliation[1];
        engine.read(state -> {
            reconciled[0] = state.reconciliation().orElse(null);
            for (TrackedDataset d : state.all()) {
                for (String url : d.urls) {
                    key(url).ifPresent(knownKeys::add);
                }
                if (d.state == CollectionState.DONE && d.doneAt >= 0 && now - d.doneAt >= retention.toMillis()) {
                    List<String> left = d.urls.stream().filter(u -> !d.deletedObjects.contains(u)).sorted().toList();
                    if (!left.isEmpty()) {
                        due.put(d.name, left);
                    }
                }
            }
            for (DeletedDataset t : state.deleted()) {
                t.objectsLeft().forEach(u -> key(u).ifPresent(knownKeys::add));
                if (!t.objectsLeft().isEmpty()) {
                    due.put(t.name(), t.objectsLeft());
                }
            }
            return null;
        });
        int deleted = 0;
        for (Map.Entry<String, List<String>> e : due.entrySet()) {
            List<String> keys = new ArrayList<>();
            e.getValue().forEach(u -> key(u).ifPresent(keys::add));
            store.delete(bucket, keys);
            engine.onObjectsDeleted(e.getKey(), e.getValue());
            deleted += keys.size();
            metrics.objectsDeleted.inc(keys.size());
            LOG.info("dataset {}: {} objects deleted", e.getKey(), keys.size());
        }
        List<String> orphansOld = new ArrayList<>();
        List<String> orphansWaiting = new ArrayList<>();
        Map<String, String> kept = new LinkedHashMap<>();
        Set<String> undecided = reconciled[0] == null ? Set.of() : new HashSet<>(reconciled[0].undecidedObjects());
        for (CleanupStore.ListedObject o : store.list(bucket)) {
            if (knownKeys.contains(o.key())) {
                continue;
            }
            if (o.lastModified() != null && now - o.lastModified().toEpochMilli() >= orphanRetention.toMillis()) {
                String keep = Reconciliation.keepReason(reconciled[0], undecided, o.key(),
                        o.lastModified().toEpochMilli());
                if (keep == null) {
                    orphansOld.add(o.key());
                } else {
                    kept.put(o.key(), keep);
                }
            } else {
                orphansWaiting.add(o.key());
            }
        }
        metrics.orphansKept.set(kept.size());
        if (!kept.isEmpty()) {
            LOG.warn("bucket {}: {} objects no journal entry names, older than {}, kept: the journal cannot account"
                    + " for them (they may be data of a journal restored from a backup); stop the supervisor and run"
                    + " 'eventindex supervisor rebuild-state' (docs/operations.md). Kept: {}", bucket, kept.size(),
                    orphanRetention, kept.entrySet().stream().limit(10).map(e -> e.getKey() + " (" + e.getValue()
                            + ")").toList());
        }
        if (!orphansOld.isEmpty()) {
            store.delete(bucket, orphansOld);
            metrics.orphansDeleted.inc(orphansOld.size());
            LOG.warn("bucket {}: {} orphan objects (no producer message within {}) deleted, e.g. {}", bucket,
                    orphansOld.size(), orphanRetention, orphansOld.get(0));
        }
        if (!orphansWaiting.isEmpty()) {
            LOG.info("bucket {}: {} objects without a producer message yet (deleted after {}), e.g. {}", bucket,
                    orphansWaiting.size(), orphanRetention, orphansWaiting.get(0));
        }
        Report r = new Report(Instant.ofEpochMilli(now), due.size(), deleted,
                orphansOld.size() + orphansWaiting.size() + kept.size(), orphansOld.size(),
                List.copyOf(orphansWaiting.subList(0, Math.min(SAMPLE, orphansWaiting.size()))), kept.size(),
                kept.keySet().stream().limit(SAMPLE).toList(), null);
        lastRun = r;
        return r;
    }

    private Optional<String> key(String url) {
        try {
            S3ObjectUrl u = S3ObjectUrl.parse(url);
            return u.bucket().equals(bucket) ? Optional.of(u.key()) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
