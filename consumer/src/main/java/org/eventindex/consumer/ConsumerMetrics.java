package org.eventindex.consumer;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

import java.util.Objects;

/** The consumer's counters and its signal-duration histogram, registered once in the daemon's registry. */
public final class ConsumerMetrics {
    public static final String SIGNALS_HANDLED = "eventindex_consumer_signals_handled_total";
    public static final String SIGNALS_FAILED = "eventindex_consumer_signals_failed_total";
    public static final String OBJECTS_READ = "eventindex_consumer_objects_read_total";
    public static final String BYTES_READ = "eventindex_consumer_bytes_read_total";
    public static final String EVENTS_WRITTEN = "eventindex_consumer_events_written_total";
    public static final String EVENTS_LOADED = "eventindex_consumer_events_loaded_total";
    /**
     * Units of work done on signals, advancing in every phase: objects read, events written to consolidated files,
     * files published, events loaded into Kudu and the load's steps without events. Busy heartbeats carry the
     * dataset's share as {@code progress}, which extends the signal's lease at the supervisor.
     */
    public static final String WORK_DONE = "eventindex_consumer_work_done_total";
    /** Signals failed by an unexpected exception (a bug): reported as internal, held by the supervisor. */
    public static final String INTERNAL_ERRORS = "eventindex_consumer_internal_errors_total";
    /** Signals dropped because they carry a lower supervisor token than one seen before (a deposed supervisor's). */
    public static final String SIGNALS_STALE_TOKEN = "eventindex_consumer_signals_stale_token_total";
    /** The highest supervisor fencing token seen on a signal, 0 before any (or without a standby supervisor). */
    public static final String SUPERVISOR_TOKEN = "eventindex_consumer_supervisor_token";
    /** Gauge: seconds since the consumer took the signal it works on, 0 when idle. */
    public static final String IN_FLIGHT_AGE = "eventindex_consumer_in_flight_seconds";
    /** Gauge: units of work ({@link #WORK_DONE}) done on the dataset in flight, 0 when idle. */
    public static final String IN_FLIGHT_PROGRESS = "eventindex_consumer_in_flight_progress";
    /** Gauge: seconds the dataset in flight has gone without progress, 0 when idle. */
    public static final String IN_FLIGHT_STALLED = "eventindex_consumer_in_flight_stalled_seconds";
    /** Histogram of a signal's handling time, label {@code status} ({@code done} or {@code failed}). */
    public static final String SIGNAL_DURATION = "eventindex_consumer_signal_duration_seconds";
    /** Gauges registered by the daemon for its Parquet format's run memory. */
    public static final String RUN_MEMORY_USED = "eventindex_consumer_run_memory_used_bytes";
    public static final String RUN_MEMORY_LIMIT = "eventindex_consumer_run_memory_limit_bytes";
    /**
     * Gauges: rows of the Kudu load in progress decided and not yet taken by Kudu (waiting for their tablet's batch,
     * or in its sessions' buffers), and {@code consumer.kudu.load.budget.rows}, which bounds the waiting ones
     * (decisions 0072, 0078).
     */
    public static final String KUDU_BUFFERED_ROWS = "eventindex_consumer_kudu_buffered_rows";
    public static final String KUDU_BUDGET_ROWS = "eventindex_consumer_kudu_budget_rows";
    /** Gauge: bytes free for the consumer on the file system of {@code consumer.spool.dir}. */
    public static final String SPOOL_FREE = "eventindex_consumer_spool_free_bytes";
    /** 1 while a dependency (label {@code dependency}: {@code hdfs}, {@code kudu}) answered its last check, else 0. */
    public static final String DEPENDENCY_UP = "eventindex_consumer_dependency_up";

    private final PrometheusRegistry registry;
    final Counter signalsHandled;
    final Counter signalsFailed;
    final Counter objectsRead;
    final Counter bytesRead;
    final Counter eventsWritten;
    final Counter eventsLoaded;
    final Counter workDone;
    final Counter internalErrors;
    final Counter signalsStaleToken;
    final Histogram signalDuration;

    public ConsumerMetrics(PrometheusRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        signalsHandled = counter(SIGNALS_HANDLED, "Signals handled (DONE or FAILED, acknowledged).");
        signalsFailed = counter(SIGNALS_FAILED, "Signals reported FAILED.");
        objectsRead = counter(OBJECTS_READ, "Objects read completely from S3.");
        bytesRead = counter(BYTES_READ, "Bytes read from S3, including failed attempts.");
        eventsWritten = counter(EVENTS_WRITTEN, "Events written to consolidated HDFS files.");
        eventsLoaded = counter(EVENTS_LOADED, "Events loaded into Kudu EVENTS/MCEVENTS.");
        workDone = counter(WORK_DONE, "Units of work done on signals as they go (objects read, events written to"
                + " consolidated files, files published, events loaded into Kudu, the load's steps without events):"
                + " the progress busy heartbeats carry.");
        internalErrors = counter(INTERNAL_ERRORS, "Signals failed by an unexpected exception (a bug in the consumer):"
                + " reported FAILED with cause internal, not retried automatically; the stack trace is in the log.");
        signalsStaleToken = counter(SIGNALS_STALE_TOKEN, "Signals dropped unprocessed (acknowledged, no report)"
                + " because they carry a lower supervisor fencing token than one seen before: sent by a supervisor"
                + " that another took over from.");
        // a dataset takes from under a second (a few small objects) to many minutes (thousands of objects)
        signalDuration = Histogram.builder().name(SIGNAL_DURATION).unit(Unit.SECONDS)
                .help("Time from taking a signal to its report, by the report's status.").labelNames("status")
                .classicUpperBounds(0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600).register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    private Counter counter(String name, String help) {
        return Counter.builder().name(name).help(help).register(registry);
    }
}
