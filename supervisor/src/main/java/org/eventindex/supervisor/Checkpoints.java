package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.Journal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * When the supervisor writes journal checkpoints ({@code supervisor.journal.checkpoint.entries} entries after the last
 * one, checked at every tick, and at a clean stop), and what operators see of them ({@code /supervisor} → journal,
 * metrics). A failed checkpoint changes nothing (the journal goes on in its file); the next attempt waits a minute.
 */
final class Checkpoints {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
    private static final Duration AFTER_FAILURE = Duration.ofMinutes(1);

    /**
     * {@code /supervisor}'s journal part.
     *
     * @param everyEntries           {@code supervisor.journal.checkpoint.entries} (0: checkpoints are off)
     * @param entriesSinceCheckpoint what a start would replay after the checkpoint now
     * @param replay                 what this process's start restored and replayed
     * @param last                   the last checkpoint this process wrote, null before one
     */
    record Info(long checkpointSeq, long entriesSinceCheckpoint, long everyEntries, Replay replay, Written last,
                String lastFailure) {
    }

    /** A start: the checkpoint restored (0 without one), the entries replayed after it, and how long it all took. */
    record Replay(long checkpointSeq, long entries, long skippedEntries, long millis) {
    }

    /** A checkpoint written. */
    record Written(@JsonSerialize(using = ToStringSerializer.class) Instant at, long seq, long bytes, long millis,
                   String archivedSegment) {
    }

    private final long everyEntries;
    private final Clock clock;
    private final SupervisorMetrics metrics;
    private volatile Replay replay = new Replay(0, 0, 0, 0);
    private volatile Written last;
    private volatile String lastFailure;
    private long notBeforeMillis;

    Checkpoints(long everyEntries, Clock clock, SupervisorMetrics metrics) {
        this.everyEntries = everyEntries;
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    }

    /** What the start that opened {@code journal} restored and replayed into {@code state}, in {@code took}. */
    void replayed(Journal journal, SupervisorState state, Duration took) {
        Journal.ReplaySummary r = journal.replaySummary();
        replay = new Replay(r.checkpointSeq(), r.entries(), r.skippedEntries(), took.toMillis());
        LOG.info("journal {} replayed in {} ms: {}{} entries, {} live and {} retired datasets{}", journal.file(),
                took.toMillis(), r.checkpointSeq() > 0 ? "checkpoint of entry " + r.checkpointSeq() + " + " : "",
                r.entries(), state.all().size(), state.retired().size(), r.tornBytesTruncated() > 0
                        ? ", torn last line of " + r.tornBytesTruncated() + " bytes truncated" : "");
    }

    void registerGauges(PrometheusRegistry registry, Journal journal) {
        DaemonMetrics.gauge(registry, "eventindex_supervisor_journal_entries_since_checkpoint",
                "Journal entries a start would replay after the checkpoint.", journal::entriesSinceCheckpoint);
    }

    /** At a tick: a checkpoint if enough entries were appended since the last one. */
    synchronized void ifDue(SupervisorEngine engine) {
        if (everyEntries > 0 && clock.millis() >= notBeforeMillis) {
            write(engine, everyEntries);
        }
    }

    /** At a clean stop, once nothing records any more: a checkpoint of whatever came after the last one. */
    synchronized void onStop(SupervisorEngine engine) {
        if (everyEntries > 0 && engine != null && engine.failure().isEmpty()) {
            write(engine, 1);
        }
    }

    Info info(Journal journal) {
        return journal == null ? null : new Info(journal.checkpointSeq(), journal.entriesSinceCheckpoint(),
                everyEntries, replay, last, lastFailure);
    }

    private void write(SupervisorEngine engine, long minEntries) {
        long started = System.nanoTime();
        try {
            Optional<Journal.CheckpointResult> r = engine.checkpoint(minEntries);
            if (r.isEmpty()) {
                return;
            }
            long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
            last = new Written(clock.instant(), r.get().seq(), r.get().bytes(), millis,
                    r.get().archived());
            lastFailure = null;
            metrics.checkpoints.inc();
            LOG.info("journal checkpoint of entry {} written ({} bytes of state, {} ms); earlier entries moved to {}",
                    r.get().seq(), r.get().bytes(), millis, r.get().archived());
        } catch (IOException | RuntimeException e) {
            lastFailure = clock.instant() + ": " + e.getMessage();
            notBeforeMillis = clock.millis() + AFTER_FAILURE.toMillis();
            metrics.checkpointFailures.inc();
            LOG.warn("journal checkpoint failed: {}; tried again in {}", e.getMessage(), AFTER_FAILURE);
        }
    }
}
