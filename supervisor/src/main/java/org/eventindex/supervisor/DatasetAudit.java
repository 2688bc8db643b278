package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.Verification;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.retry.Outage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code eventindex verify} on a schedule ({@value SupervisorConfig#VERIFY_INTERVAL}): each {@link #verifyNext} takes
 * the next LOADED dataset of DATASETS in name order (round-robin, so every dataset is verified once per
 * {@code datasets x interval}) and verifies it with the loader's own code ({@link Target}: the Kudu rows against its
 * HDFS file, the content checksum recorded at load time and the catalogue's counts). The last verdict of every dataset
 * that differs is kept (until it is verified OK, or is no longer LOADED) for {@code /console/verify} and the metrics;
 * the repair is the operator's one command ({@link #repairCommand}). A verification that cannot run (Kudu or HDFS
 * down) is logged as an outage and retried at the next interval; nothing is ever written.
 */
final class DatasetAudit {
    private static final Logger LOG = LoggerFactory.getLogger(DatasetAudit.class);

    /** What is verified: the catalogue's rows and one dataset's verification (the loader's code on Kudu and HDFS). */
    interface Target {
        List<DatasetsRow> datasets() throws IOException;

        Verification verify(DatasetsRow dataset) throws IOException;
    }

    /** A dataset whose last verification found a difference. */
    record Finding(String dataset, Verification.Verdict verdict, List<String> differences,
                   @JsonSerialize(using = ToStringSerializer.class) Instant at, String repair) {
    }

    /**
     * {@code /console/verify}.
     *
     * @param verified  verifications done since this supervisor became active
     * @param loaded    LOADED datasets at the last verification
     * @param lastError why the last attempt could not verify (null when it could)
     */
    record Report(long intervalSeconds, long verified, int loaded, String lastDataset,
                  @JsonSerialize(using = ToStringSerializer.class) Instant lastAt, String lastError,
                  List<Finding> differing) {
    }

    private final Target target;
    private final Duration interval;
    private final Clock clock;
    private final String masters;
    private final Outage outage = new Outage("scheduled verify", "cannot verify", "verifying again", LOG,
            System::nanoTime);
    private final Map<String, Finding> differing = new ConcurrentHashMap<>();
    private final Counter verdicts;
    private int failures;
    private String cursor = "";
    private volatile long verified;
    private volatile int loaded;
    private volatile String lastDataset;
    private volatile Instant lastAt;
    private volatile String lastError;

    /**
     * @param masters  the Kudu masters the repair command names
     * @param verdicts {@code eventindex_supervisor_verify_datasets_total}, labelled by {@link #label}
     */
    DatasetAudit(Target target, Duration interval, Clock clock, String masters, Counter verdicts) {
        this.target = Objects.requireNonNull(target, "target is null");
        this.interval = Objects.requireNonNull(interval, "interval is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.masters = Objects.requireNonNull(masters, "masters is null");
        this.verdicts = Objects.requireNonNull(verdicts, "verdicts is null");
    }

    /**
     * Registers the scheduled verify's gauges, {@code audit}'s or 0 when it is off (null), so that they exist in every
     * supervisor's {@code /metrics}.
     */
    static void registerGauges(PrometheusRegistry registry, DatasetAudit audit) {
        DaemonMetrics.gauge(registry, "eventindex_supervisor_verify_differences", "LOADED datasets whose last"
                + " scheduled verification found Kudu, the HDFS file and the catalogue disagreeing (/console/verify"
                + " lists them); 0 while supervisor.verify.interval is off.", () -> audit == null ? 0
                : audit.differing.size());
        DaemonMetrics.gauge(registry, "eventindex_supervisor_verify_last_timestamp_seconds", "When the last scheduled"
                + " verification of a dataset ended (seconds since the epoch; 0 before the first, or when off).",
                () -> audit == null || audit.lastAt == null ? 0 : audit.lastAt.toEpochMilli() / 1000.0);
    }

    /**
     * Verifies the LOADED dataset that follows the last one verified (by name, from the first after the last);
     * returns its verification, or null when there is none or it could not run (then logged and kept in
     * {@link Report#lastError}). One thread calls it.
     */
    Verification verifyNext() {
        DatasetsRow next = null;
        try {
            List<DatasetsRow> rows = target.datasets().stream().filter(DatasetsRow::isLoaded)
                    .sorted(Comparator.comparing(DatasetsRow::dataset)).toList();
            loaded = rows.size();
            differing.keySet().removeIf(name -> rows.stream().noneMatch(r -> r.dataset().equals(name)));
            if (rows.isEmpty()) {
                return null;
            }
            next = rows.stream().filter(r -> r.dataset().compareTo(cursor) > 0).findFirst().orElse(rows.get(0));
            cursor = next.dataset();
            Verification v = target.verify(next);
            record(v);
            failures = 0;
            lastError = null;
            outage.reachable();
            return v;
        } catch (IOException | RuntimeException e) {
            lastError = (next == null ? "listing the LOADED datasets" : "verifying " + next.dataset()) + ": " + e;
            outage.retryingEvery(lastError, ++failures, interval);
            return null;
        }
    }

    private void record(Verification v) {
        Instant now = clock.instant();
        verdicts.labelValues(label(v.verdict())).inc();
        if (v.ok()) {
            differing.remove(v.dataset());
        } else {
            differing.put(v.dataset(), new Finding(v.dataset(), v.verdict(), v.differences(), now,
                    repairCommand(v)));
            LOG.warn("verify: {} {}: {}", v.verdict(), v.dataset(), String.join("; ", v.differences()));
        }
        verified++;
        lastDataset = v.dataset();
        lastAt = now;
    }

    /** What an operator runs: the reload for KUDU_DIFFERS; for a file that is not the one loaded, a look at it. */
    String repairCommand(Verification v) {
        String base = "eventindex verify --masters " + masters + " --dataset '" + v.dataset() + "'";
        return v.verdict() == Verification.Verdict.KUDU_DIFFERS ? base + " --repair"
                : base + "   # the file is not what was loaded: restore it or have the dataset consolidated again"
                + " (supervisor resignal), then verify again";
    }

    Report report() {
        List<Finding> found = new ArrayList<>(differing.values());
        found.sort(Comparator.comparing(Finding::dataset));
        return new Report(interval.toSeconds(), verified, loaded, lastDataset, lastAt, lastError, found);
    }

    Duration interval() {
        return interval;
    }

    /** The {@code verdict} label of a verification. */
    static String label(Verification.Verdict v) {
        return v.name().toLowerCase(java.util.Locale.ROOT);
    }
}
