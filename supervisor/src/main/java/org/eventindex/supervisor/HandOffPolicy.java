package org.eventindex.supervisor;

import org.eventindex.retry.Backoff;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * When the supervisor sends a dataset's signal again by itself. Pure (time is passed in):
 * <ul>
 *   <li>{@code SIGNALLED} and no report {@code lease} after the lease's start: the consumer that took it is presumed
 *       stuck or gone; the same signal goes out again (another consumer may take it). The lease starts when the
 *       signal was (last) sent, and again at each progress its holder reports in its heartbeats
 *       ({@link SignalLeases#countsFrom}): a long dataset keeps its consumer while it progresses, a consumer alive
 *       but stuck loses it.</li>
 *   <li>{@code FAILED_CONSUMER} after {@code n} transient FAILED reports, {@code n <= attempts}: sent again
 *       {@code min(initial * 2^(n-1), max)} after the last report. After that the dataset waits for an operator.</li>
 *   <li>{@code FAILED_CONSUMER} after a permanent FAILED report (the consumer found the signal, an object or its
 *       content wrong: the same signal would fail the same way): never sent again by itself; the dataset waits for an
 *       operator at once ({@code invalidate} re-selects, {@code resignal} sends it again).</li>
 *   <li>{@code FAILED_CONSUMER} after an internal error of the consumer (cause {@code internal}: an unexpected
 *       exception, a bug): never sent again by itself either, whatever its {@code permanent} says. Retrying would
 *       read and consolidate the whole dataset again only to meet the same bug; the objects are kept and the
 *       operator re-runs it with {@code resignal} once the consumer is fixed.</li>
 * </ul>
 */
final class HandOffPolicy {
    private final SupervisorConfig.HandOff settings;
    private final Backoff backoff;

    HandOffPolicy(SupervisorConfig.HandOff settings) {
        this.settings = Objects.requireNonNull(settings, "settings is null");
        this.backoff = settings.retryBackoff();
    }

    /**
     * Why the dataset's signal must be sent again now, if it must.
     *
     * @param leaseFrom where its lease counts from (epoch ms), at or after its last send
     */
    Optional<String> resignalReason(TrackedDataset d, long nowMillis, long leaseFrom) {
        if (leaseExpired(d, nowMillis, leaseFrom)) {
            return Optional.of("lease of " + settings.lease() + " expired without a consumer report"
                    + (leaseFrom > d.sentAt ? " (counted from " + Instant.ofEpochMilli(leaseFrom) + ")" : ""));
        }
        if (d.state == CollectionState.FAILED_CONSUMER && !failedPermanently(d) && d.failures >= 1
                && d.failures <= settings.retryAttempts() && d.lastReportAt >= 0
                && nowMillis - d.lastReportAt >= backoff(d.failures).toMillis()) {
            return Optional.of("automatic retry " + d.failures + " of " + settings.retryAttempts()
                    + " after FAILED: " + (d.lastReport == null ? "" : d.lastReport.reason()));
        }
        return Optional.empty();
    }

    /** Whether the dataset is SIGNALLED and its lease, counted from {@code leaseFrom}, ran out at {@code nowMillis}. */
    boolean leaseExpired(TrackedDataset d, long nowMillis, long leaseFrom) {
        return d.state == CollectionState.SIGNALLED && d.sentAt >= 0
                && nowMillis - Math.max(d.sentAt, leaseFrom) >= settings.lease().toMillis();
    }

    /** The lease: how long a signal is left to its consumer without a report or progress. */
    Duration lease() {
        return settings.lease();
    }

    /** Whether the dataset exhausted its automatic retries and waits for an operator. */
    boolean retriesExhausted(TrackedDataset d) {
        return d.state == CollectionState.FAILED_CONSUMER && d.failures > settings.retryAttempts();
    }

    /**
     * Whether the dataset's last report is a failure that is not retried automatically: a permanent one, or an
     * internal error of the consumer. It waits for an operator.
     */
    static boolean failedPermanently(TrackedDataset d) {
        return d.state == CollectionState.FAILED_CONSUMER && d.lastReport != null
                && (d.lastReport.permanent() || d.lastReport.internal());
    }

    /** Whether the dataset's last report is an internal error of the consumer (a bug, not a fault of its input). */
    static boolean failedInternally(TrackedDataset d) {
        return d.state == CollectionState.FAILED_CONSUMER && d.lastReport != null && d.lastReport.internal();
    }

    /**
     * The wait after the {@code failures}-th FAILED report before the automatic retry (the first wait for 0: a
     * dataset whose FAILED report did not count, as logged). Without jitter: it is recomputed on every tick and must
     * give the same answer.
     */
    Duration backoff(int failures) {
        return backoff.delay(Math.max(0, failures - 1));
    }
}
