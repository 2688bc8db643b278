package org.eventindex.config;

import java.time.Duration;
import java.util.List;
import org.eventindex.stomp.StompSettings;

/**
 * How a daemon finds its brokers, the same under every prefix: {@code <prefix>brokers} (names and lists, see
 * {@link #BROKERS_DOC}) and {@code <prefix>brokers.resolve.interval}.
 */
public final class BrokerKeys {
    /** What {@code <prefix>brokers} means, for every daemon's table of keys. */
    public static final String BROKERS_DOC = "STOMP brokers, host:port[,host:port...]. Every address a host name"
            + " resolves to is a broker of its own (a DNS alias of several independent brokers is several brokers):"
            + " queues are read on every broker at once, a message is sent through one (a random one first, the next"
            + " on failure). The TLS certificate is checked against the name as written here.";

    private BrokerKeys() {
    }

    public static String resolveIntervalKey(String prefix) {
        return prefix + "brokers.resolve.interval";
    }

    /** The documented key under {@code prefix} (e.g. {@code "consumer."}). */
    public static List<ConfigKey> keys(String prefix) {
        return List.of(new ConfigKey(resolveIntervalKey(prefix),
                StompSettings.DEFAULT_RESOLVE_INTERVAL.toSeconds() + "s", null,
                "How often the host names of " + prefix + "brokers are resolved again, so that brokers joining or"
                        + " leaving an alias are subscribed to or dropped (a name that fails to resolve keeps its"
                        + " brokers). The JVM caches a name for networkaddress.cache.ttl (30 s) on top of this."));
    }

    /** @throws IllegalArgumentException naming the key when the interval is not a positive duration */
    public static Duration resolveInterval(ConfigReader r, String prefix) {
        Duration d = r.duration(resolveIntervalKey(prefix));
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(resolveIntervalKey(prefix) + " must be positive, got " + d);
        }
        return d;
    }
}
