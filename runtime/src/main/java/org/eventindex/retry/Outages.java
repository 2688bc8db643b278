package org.eventindex.retry;

import org.slf4j.Logger;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The {@link Outage}s of the dependencies one set of retrying loops shares, one per dependency name: the STOMP
 * settings of a daemon carry one, so that every worker it subscribes with on a broker logs that broker's outage
 * together.
 */
public final class Outages {
    private final Map<String, Outage> byDependency = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    /** On the system's monotonic clock. */
    public Outages() {
        this(System::nanoTime);
    }

    public Outages(LongSupplier nanoTime) {
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime is null");
    }

    /** The outage of {@code dependency}, made with {@code log} on first use. */
    public Outage of(String dependency, Logger log) {
        return byDependency.computeIfAbsent(dependency, d -> new Outage(d, log, nanoTime));
    }

    @Override
    public String toString() {
        return "Outages" + byDependency.keySet();
    }
}
