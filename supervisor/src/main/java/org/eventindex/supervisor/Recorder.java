package org.eventindex.supervisor;

import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Makes the engine's decisions durable and visible: appends them to the journal (forced to disk), folds each entry
 * into the state and offers it to the {@code /events} stream; records refused messages (journal, counter, log) and
 * copies them to the quarantine queue; writes checkpoints of the state. Not thread-safe: the engine calls everything
 * but {@link #quarantine} under its lock.
 */
final class Recorder {
    private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);
    private static final int MAX_BODY_IN_JOURNAL = 16 * 1024;

    private final Journal journal;
    private final SupervisorState state;
    private final Quarantine quarantine;
    private final SupervisorMetrics metrics;
    private final Clock clock;
    private volatile StateChange.Listener listener = StateChange.Listener.NONE;

    Recorder(Journal journal, SupervisorState state, Quarantine quarantine, SupervisorMetrics metrics, Clock clock) {
        this.journal = Objects.requireNonNull(journal, "journal is null");
        this.state = Objects.requireNonNull(state, "state is null");
        this.quarantine = Objects.requireNonNull(quarantine, "quarantine is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
    }

    void listener(StateChange.Listener l) {
        this.listener = Objects.requireNonNull(l, "listener is null");
    }

    /** Journals the events (one write, one fsync) and applies each entry to the state. */
    void record(List<? extends JournalEvent> events) throws IOException {
        apply(journal.append(events, clock.millis()));
    }

    /**
     * Journals the events without waiting for the disk and applies each entry to the state (group commit): nothing
     * may be acknowledged or sent on their strength before {@link #awaitDurable} with {@link #lastSeq()} returns.
     */
    void recordUnforced(List<? extends JournalEvent> events) throws IOException {
        apply(journal.write(events, clock.millis()));
    }

    /** Returns once entry {@code seq} and every one before it are on disk; one force serves every waiting caller. */
    void awaitDurable(long seq) throws IOException {
        journal.awaitDurable(seq);
    }

    /** The sequence number of the last recorded entry (on disk or not yet). */
    long lastSeq() {
        return journal.lastSeq();
    }

    private void apply(List<JournalEntry> entries) {
        for (JournalEntry e : entries) {
            state.apply(e);
            try {
                listener.changed(StateChanges.of(e, state));
            } catch (RuntimeException ex) {
                LOG.warn("state change listener failed on entry {}: {}", e.seq(), ex.toString());
            }
        }
    }

    /** Journals a refused message (with the first bytes of its body), counts and logs it. */
    void recordRejection(String queue, Rejection r, byte[] body) throws IOException {
        record(List.of(new JournalEvent.MessageRejected(queue, r.messageId(), r.reason().name(), r.detail(),
                r.dataset(), bodyForJournal(body))));
        metrics.rejected(r.reason());
        LOG.warn("rejected message {} from {}: {}: {}", r.messageId(), queue, r.reason(), r.detail());
    }

    /** Copies a refused message to the quarantine queue; a failure is counted and logged (the journal has it). */
    void quarantine(String queue, Rejection r, byte[] body) {
        try {
            quarantine.copy(queue, r, body);
        } catch (IOException | RuntimeException e) {
            metrics.quarantineFailures.inc();
            LOG.warn("rejected message {} from {} could not be copied to quarantine: {} (it stays in the journal)",
                    r.messageId(), queue, e.getMessage());
        }
    }

    /** The sequence number the next recorded entry will get. */
    long nextSeq() {
        return journal.lastSeq() + 1;
    }

    /** A checkpoint of the state if at least {@code minEntries} (at least 1) entries came since the last one. */
    Optional<Journal.CheckpointResult> checkpoint(long minEntries) throws IOException {
        if (journal.entriesSinceCheckpoint() < Math.max(1, minEntries)) {
            return Optional.empty();
        }
        return journal.checkpoint(state.checkpoint()::writeTo, clock.millis());
    }

    /** Why nothing can be recorded any more, if so. */
    Optional<String> failure() {
        return journal.failure();
    }

    private static String bodyForJournal(byte[] body) {
        if (body == null) {
            return null;
        }
        if (body.length <= MAX_BODY_IN_JOURNAL) {
            return new String(body, StandardCharsets.UTF_8);
        }
        return new String(body, 0, MAX_BODY_IN_JOURNAL, StandardCharsets.UTF_8) + "...(truncated, " + body.length
                + " bytes)";
    }
}
