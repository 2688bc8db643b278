package org.eventindex.consumer;

import org.eventindex.ops.Metrics;

import java.util.Objects;

/** The consumer's counters, registered once in the daemon's {@link Metrics}. */
public final class ConsumerMetrics {
    public static final String SIGNALS_HANDLED = "eventindex_consumer_signals_handled_total";
    public static final String SIGNALS_FAILED = "eventindex_consumer_signals_failed_total";
    public static final String OBJECTS_READ = "eventindex_consumer_objects_read_total";
    public static final String BYTES_READ = "eventindex_consumer_bytes_read_total";
    public static final String EVENTS_WRITTEN = "eventindex_consumer_events_written_total";
    public static final String EVENTS_LOADED = "eventindex_consumer_events_loaded_total";
    /** Gauges registered by the daemon for its Parquet format's run memory. */
    public static final String RUN_MEMORY_USED = "eventindex_consumer_run_memory_used_bytes";
    public static final String RUN_MEMORY_LIMIT = "eventindex_consumer_run_memory_limit_bytes";

    private final Metrics registry;
    final Metrics.Counter signalsHandled;
    final Metrics.Counter signalsFailed;
    final Metrics.Counter objectsRead;
    final Metrics.Counter bytesRead;
    final Metrics.Counter eventsWritten;
    final Metrics.Counter eventsLoaded;

    public ConsumerMetrics(Metrics registry) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        signalsHandled = registry.counter(SIGNALS_HANDLED, "Signals handled (DONE or FAILED, acknowledged).");
        signalsFailed = registry.counter(SIGNALS_FAILED, "Signals reported FAILED.");
        objectsRead = registry.counter(OBJECTS_READ, "Objects read completely from S3.");
        bytesRead = registry.counter(BYTES_READ, "Bytes read from S3, including failed attempts.");
        eventsWritten = registry.counter(EVENTS_WRITTEN, "Events written to consolidated HDFS files.");
        eventsLoaded = registry.counter(EVENTS_LOADED, "Events loaded into Kudu EVENTS/MCEVENTS.");
    }

    public Metrics registry() {
        return registry;
    }
}
