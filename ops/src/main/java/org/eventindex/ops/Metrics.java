package org.eventindex.ops;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * A daemon's counters and gauges, rendered in the Prometheus text exposition format. Names follow Prometheus rules
 * ({@code eventindex_<daemon>_<what>_total} for counters); registering the same name twice returns the same counter.
 */
public final class Metrics {
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();

    public Counter counter(String name, String help) {
        return counters.computeIfAbsent(checkName(name), n -> new Counter(n, help));
    }

    public void gauge(String name, String help, DoubleSupplier value) {
        gauges.put(checkName(name), new Gauge(name, help, value));
    }

    /** The current value of a counter, 0 if it was never registered (for tests and the info service). */
    public long value(String counterName) {
        Counter c = counters.get(counterName);
        return c == null ? 0 : c.get();
    }

    public String renderPrometheus() {
        StringBuilder sb = new StringBuilder();
        for (Counter c : new TreeMap<>(counters).values()) {
            sb.append("# HELP ").append(c.name).append(' ').append(c.help).append('\n');
            sb.append("# TYPE ").append(c.name).append(" counter\n");
            sb.append(c.name).append(' ').append(c.get()).append('\n');
        }
        for (Gauge g : new TreeMap<>(gauges).values()) {
            sb.append("# HELP ").append(g.name).append(' ').append(g.help).append('\n');
            sb.append("# TYPE ").append(g.name).append(" gauge\n");
            sb.append(g.name).append(' ').append(format(g.value.getAsDouble())).append('\n');
        }
        return sb.toString();
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    private static String checkName(String name) {
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("invalid metric name '" + name + "'");
        }
        return name;
    }

    /** A monotonically increasing count. */
    public static final class Counter {
        private final String name;
        private final String help;
        private final LongAdder adder = new LongAdder();

        private Counter(String name, String help) {
            this.name = name;
            this.help = help;
        }

        public void inc() {
            adder.increment();
        }

        public void add(long n) {
            adder.add(n);
        }

        public long get() {
            return adder.sum();
        }
    }

    private record Gauge(String name, String help, DoubleSupplier value) {
    }
}
