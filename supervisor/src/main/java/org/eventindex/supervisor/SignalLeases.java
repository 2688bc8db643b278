package org.eventindex.supervisor;

import org.eventindex.message.ConsumerHeartbeat;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where each signalled dataset's lease counts from: the later of the signal's (last) send, the moment this supervisor
 * became active, and the last progress of the consumer that holds the signal, from its busy heartbeats. The
 * {@link HandOffPolicy} decides with it; the decision, a RESIGNAL_REQUESTED entry, is journalled like every other, so
 * a replay folds it and never needs the heartbeats. In memory only, as the heartbeats it is made of: a restarted or standby
 * supervisor starts with no holder, and counts each lease from its own start at the earliest (see
 * docs/supervisor.md, "Consumer hand-off").
 *
 * <p>The holder of a send is the first consumer heard busy on the dataset's current signal after the send (with a
 * {@code progress}: a consumer older than the field holds nothing, and its signals keep the lease counted from the
 * send). Only the holder's heartbeats extend the lease, and only those whose {@code progress} is above the highest it
 * sent for its attempt (a new {@code busySince}, the consumer taking the signal again, starts from 0). A holder whose
 * lease expired can never hold that signal again: after the re-send, the next consumer heard on it takes it. Not
 * thread-safe: the engine calls it under its lock.
 */
final class SignalLeases {
    /** What a heartbeat did to its dataset's lease. */
    enum Outcome {
        /** Not the current signal, not its holder, no progress field, or the dataset is not signalled. */
        IGNORED,
        /** The holder's (or a new holder's) progress went up: the lease counts from now. */
        EXTENDED,
        /** The holder was heard without progress (or a new holder that has done nothing yet). */
        NO_PROGRESS
    }

    /**
     * A lease that expired.
     *
     * @param stuck  the holder was still heard after its last progress: alive, but it made no progress for a lease
     * @param detail who held it and when it was last heard and progressed, for the resignal's reason
     */
    record Expired(boolean stuck, String detail) {
    }

    /** One send of a dataset's signal and its holder. */
    private static final class Hold {
        final long sentAt;
        String holder;
        long busySince;
        long progress;
        long progressAt = -1;
        long heardAt = -1;

        Hold(long sentAt) {
            this.sentAt = sentAt;
        }
    }

    /** A dataset's current signal: its current send, and the consumers that lost its lease. */
    private static final class Entry {
        final String signalId;
        final Set<String> lost = new HashSet<>();
        Hold hold;

        Entry(String signalId) {
            this.signalId = signalId;
        }
    }

    private final long activeSince;
    private final Map<String, Entry> byDataset = new HashMap<>();

    /** @param activeSince when this supervisor became active (epoch ms): no lease counts from earlier */
    SignalLeases(long activeSince) {
        this.activeSince = activeSince;
    }

    /** A valid heartbeat received at {@code receivedAt}, about {@code d} (null: a dataset the supervisor lacks). */
    Outcome heartbeat(TrackedDataset d, ConsumerHeartbeat h, long receivedAt) {
        if (d == null || !ConsumerHeartbeat.BUSY.equals(h.state()) || h.progress() == null
                || d.state != CollectionState.SIGNALLED || d.sentAt < 0 || !d.signal.signalId().equals(h.signalId())) {
            return Outcome.IGNORED;
        }
        Hold hold = hold(d);
        if (hold.holder == null) {
            if (entry(d).lost.contains(h.consumer())) {
                return Outcome.IGNORED;
            }
            hold.holder = h.consumer();
            hold.busySince = h.busySince();
            hold.progress = 0;
        } else if (!hold.holder.equals(h.consumer())) {
            return Outcome.IGNORED;
        } else if (h.busySince() != hold.busySince) {
            // the holder took the signal again (a redelivery after its restart): its count starts again
            hold.busySince = h.busySince();
            hold.progress = 0;
        }
        hold.heardAt = Math.max(hold.heardAt, receivedAt);
        if (h.progress() <= hold.progress) {
            return Outcome.NO_PROGRESS;
        }
        hold.progress = h.progress();
        hold.progressAt = Math.max(hold.progressAt, receivedAt);
        return Outcome.EXTENDED;
    }

    /** Where {@code d}'s lease counts from (epoch ms): its send, this supervisor's start, or its holder's progress. */
    long countsFrom(TrackedDataset d) {
        long from = Math.max(d.sentAt, activeSince);
        Hold hold = current(d);
        return hold == null ? from : Math.max(from, hold.progressAt);
    }

    /**
     * {@code d}'s lease expired and its signal goes out again: its holder, if any, loses it for good (it cannot hold
     * this signal again).
     */
    Expired expired(TrackedDataset d) {
        Hold hold = current(d);
        if (hold == null || hold.holder == null) {
            return new Expired(false, "no consumer was heard working on it");
        }
        entry(d).lost.add(hold.holder);
        long from = countsFrom(d);
        boolean stuck = hold.heardAt > from;
        String detail = "consumer " + hold.holder + (hold.progressAt < 0 ? " made no progress"
                : " made no progress since " + Instant.ofEpochMilli(hold.progressAt) + " (at " + hold.progress + ")")
                + (stuck ? ", though its heartbeats still came (last at " + Instant.ofEpochMilli(hold.heardAt) + ")"
                : hold.heardAt < 0 ? "" : ", and was last heard at " + Instant.ofEpochMilli(hold.heardAt));
        return new Expired(stuck, detail);
    }

    /** The lease of {@code d}'s current send, while it is SIGNALLED. */
    Optional<DatasetView.Lease> view(TrackedDataset d, long leaseMillis) {
        if (d.state != CollectionState.SIGNALLED || d.sentAt < 0) {
            return Optional.empty();
        }
        Hold hold = current(d);
        long from = countsFrom(d);
        return Optional.of(new DatasetView.Lease(hold == null ? null : hold.holder, hold == null ? 0 : hold.progress,
                hold == null ? null : instant(hold.progressAt), hold == null ? null : instant(hold.heardAt),
                Instant.ofEpochMilli(from), Instant.ofEpochMilli(from + leaseMillis)));
    }

    /** Forgets the datasets that are no longer signalled or have another signal (called on every tick). */
    void retain(SupervisorState state) {
        byDataset.entrySet().removeIf(e -> state.find(e.getKey())
                .filter(d -> d.signalled() && d.state != CollectionState.DONE
                        && d.signal.signalId().equals(e.getValue().signalId))
                .isEmpty());
    }

    private Entry entry(TrackedDataset d) {
        Entry e = byDataset.get(d.name);
        if (e == null || !e.signalId.equals(d.signal.signalId())) {
            e = new Entry(d.signal.signalId());
            byDataset.put(d.name, e);
        }
        return e;
    }

    private Hold hold(TrackedDataset d) {
        Entry e = entry(d);
        if (e.hold == null || e.hold.sentAt != d.sentAt) {
            e.hold = new Hold(d.sentAt);
        }
        return e.hold;
    }

    /** The hold of {@code d}'s current signal and send, null when no holder was heard since it. */
    private Hold current(TrackedDataset d) {
        Entry e = byDataset.get(d.name);
        if (e == null || d.signal == null || !e.signalId.equals(d.signal.signalId()) || e.hold == null
                || e.hold.sentAt != d.sentAt) {
            return null;
        }
        return e.hold;
    }

    private static Instant instant(long millis) {
        return millis < 0 ? null : Instant.ofEpochMilli(millis);
    }
}
