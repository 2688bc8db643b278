package org.eventindex.brokerwatch;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.OpsHttpServer;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the watchdog tells Prometheus and {@code /ready}: the outcome of its probes and its kills. Ready while the
 * last probe found the broker answering or not listening (down or starting), not while it is silent.
 * Thread-safe: the probe loop records, the HTTP threads read.
 */
public final class BrokerWatchMetrics {
    private static final String P = "eventindex_brokerwatch_";
    /** Counter, label {@code outcome} ({@code answered}, {@code not_listening}, {@code silent}). */
    public static final String PROBES = P + "probes_total";
    /** Counter: brokers killed with SIGKILL after the limit of silent probes (each lets the standby take over). */
    public static final String KILLS = P + "kills_total";
    /** Gauge: 1 when the last probe was answered (this broker is the one that works), else 0. */
    public static final String ANSWERING = P + "broker_answering";
    /** Gauge: 1 when the last probe found the port open (answered or silent), 0 when nothing listens (standby). */
    public static final String LISTENING = P + "broker_listening";
    /** Every name this class registers (besides the JVM's and {@code eventindex_ready}). */
    public static final List<String> NAMES = List.of(PROBES, KILLS, ANSWERING, LISTENING);

    private final PrometheusRegistry registry;
    private final Map<BrokerProbe.Outcome, CounterDataPoint> probes = new EnumMap<>(BrokerProbe.Outcome.class);
    private final Counter kills;
    private volatile BrokerProbe.Outcome last;
    private volatile int silentInARow;

    BrokerWatchMetrics(PrometheusRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        Counter c = Counter.builder().name(PROBES).help("Probes of the local broker, by outcome: answered,"
                + " not_listening (a broker that is down or still starting), silent (listens"
                + " but does not answer: stopped or hung).").labelNames("outcome").register(registry);
        for (BrokerProbe.Outcome o : BrokerProbe.Outcome.values()) {
            probes.put(o, c.labelValues(o.name().toLowerCase(Locale.ROOT)));
        }
        kills = Counter.builder().name(KILLS).help("Times the watchdog killed the local broker with SIGKILL after"
                + " its limit of silent probes (its service manager then restarts it).").register(registry);
        DaemonMetrics.gauge(registry, ANSWERING, "1 when the last probe of the local broker was answered, else 0.",
                () -> last == BrokerProbe.Outcome.ANSWERED ? 1 : 0);
        DaemonMetrics.gauge(registry, LISTENING, "1 when the last probe found the local broker's port open (answered"
                + " or silent), 0 when nothing listens (a broker that is down or still starting).",
                () -> last == BrokerProbe.Outcome.ANSWERED || last == BrokerProbe.Outcome.SILENT ? 1 : 0);
    }

    PrometheusRegistry registry() {
        return registry;
    }

    void probed(BrokerProbe.Outcome outcome) {
        probes.get(Objects.requireNonNull(outcome, "outcome is null")).inc();
        silentInARow = outcome == BrokerProbe.Outcome.SILENT ? silentInARow + 1 : 0;
        last = outcome;
    }

    void killed() {
        kills.inc();
    }

    /** {@code /ready}: not before the first probe, nor while the broker listens but does not answer. */
    OpsHttpServer.Readiness readiness() {
        BrokerProbe.Outcome o = last;
        if (o == null) {
            return OpsHttpServer.Readiness.notReady("no probe of the broker yet");
        }
        if (o == BrokerProbe.Outcome.SILENT) {
            return OpsHttpServer.Readiness.notReady("the broker listens but did not answer the last " + silentInARow
                    + " probe(s)");
        }
        return OpsHttpServer.Readiness.ok();
    }
}
