package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.eventindex.ProjectVersion;

import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * The daemons' metrics on the Prometheus Java client: {@link #registry(String)} makes a daemon's registry with the JVM
 * metrics ({@code jvm_*}, {@code process_*}) and {@code eventindex_build_info}; the daemon registers its own counters,
 * gauges and histograms ({@code eventindex_<daemon>_...}) in it, and {@link OpsHttpServer} serves it at
 * {@code /metrics}.
 */
public final class DaemonMetrics {
    public static final String BUILD_INFO = "eventindex_build_info";

    private DaemonMetrics() {
    }

    /**
     * A daemon's registry with the JVM metrics and
     * {@code eventindex_build_info{daemon="<daemon>",dirty="false",revision="<git commit>",version="..."} 1}
     * ({@link ProjectVersion}; the Prometheus client orders the labels by name).
     *
     * @param daemon the daemon's name as in the metric names, e.g. {@code supervisor}
     */
    public static PrometheusRegistry registry(String daemon) {
        Objects.requireNonNull(daemon, "daemon is null");
        PrometheusRegistry registry = new PrometheusRegistry();
        JvmMetrics.builder().register(registry);
        Gauge.builder().name(BUILD_INFO).help("Always 1; the labels name the daemon, the project version, the git commit"
                        + " it was built from (revision, or unknown) and whether that checkout had uncommitted changes"
                        + " (dirty: true, false or unknown).")
                .labelNames("daemon", "version", "revision", "dirty").register(registry)
                .labelValues(daemon, ProjectVersion.get(), ProjectVersion.commit(), ProjectVersion.dirty()).set(1);
        return registry;
    }

    /** Registers a gauge read from {@code value} at each scrape. */
    public static void gauge(PrometheusRegistry registry, String name, String help, DoubleSupplier value) {
        Objects.requireNonNull(value, "value is null");
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble()))
                .register(registry);
    }

    /** The gauge of {@link #brokerSubscriptions}. */
    public static final String BROKER_SUBSCRIBED = "eventindex_broker_subscribed";

    /**
     * Registers {@value #BROKER_SUBSCRIBED}, labels {@code queue} and {@code broker}: 1 while the daemon is subscribed
     * to the queue on that broker, 0 while it is not (down, refusing, connecting), for every broker the daemon's
     * {@code brokers} now resolve to.
     *
     * @param subscriptions queue to (broker to subscribed), read at each scrape
     */
    public static void brokerSubscriptions(PrometheusRegistry registry,
                                           Supplier<Map<String, Map<String, Boolean>>> subscriptions) {
        Objects.requireNonNull(subscriptions, "subscriptions is null");
        GaugeWithCallback.builder().name(BROKER_SUBSCRIBED)
                .help("1 while subscribed to the queue on the broker, 0 while not; one series per broker the"
                        + " brokers setting resolves to now.")
                .labelNames("queue", "broker")
                .callback(cb -> subscriptions.get().forEach((queue, brokers) ->
                        brokers.forEach((broker, up) -> cb.call(up ? 1 : 0, queue, broker))))
                .register(registry);
    }

    /**
     * The value of a counter or gauge now, summed over its label values (only those with the given label name/value
     * pairs, when some are given); 0 when nothing of that name is registered. A counter's name may be given with or
     * without {@code _total}.
     */
    public static double value(PrometheusRegistry registry, String name, String... labelNamesAndValues) {
        Objects.requireNonNull(registry, "registry is null");
        Objects.requireNonNull(name, "name is null");
        Labels wanted = Labels.of(labelNamesAndValues);
        double sum = 0;
        for (MetricSnapshot s : registry.scrape()) {
            String n = s.getMetadata().getPrometheusName();
            boolean counter = s instanceof CounterSnapshot;
            if (!(n.equals(name) || counter && (n + "_total").equals(name))) {
                continue;
            }
            for (DataPointSnapshot p : s.getDataPoints()) {
                if (!matches(p.getLabels(), wanted)) {
                    continue;
                }
                if (p instanceof CounterSnapshot.CounterDataPointSnapshot c) {
                    sum += c.getValue();
                } else if (p instanceof GaugeSnapshot.GaugeDataPointSnapshot g) {
                    sum += g.getValue();
                }
            }
        }
        return sum;
    }

    private static boolean matches(Labels labels, Labels wanted) {
        for (int i = 0; i < wanted.size(); i++) {
            if (!wanted.getValue(i).equals(labels.get(wanted.getName(i)))) {
                return false;
            }
        }
        return true;
    }
}
