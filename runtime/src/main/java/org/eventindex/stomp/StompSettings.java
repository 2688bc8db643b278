package org.eventindex.stomp;

import org.eventindex.config.Secret;
import org.eventindex.retry.Outages;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLSocketFactory;

/**
 * How to reach the brokers. An endpoint is a host name and a port; every address the name resolves to is a broker
 * ({@link BrokerSet}). A connection ({@link StompConnection#connect}) goes to one of them, starting at a random one
 * and trying the next on failure; a {@link StompFanIn} subscribes on each. The passcode is never printed by
 * {@link #toString()}.
 *
 * @param tls when not null, every connection is TLS ({@code stomp+ssl}) through this factory, with the broker's
 *            certificate checked against the endpoint's host name; null means plain TCP
 * @param frameLimits the largest frames accepted from the brokers ({@link StompFrameLimits#DEFAULT} unless a daemon
 *            configures its own)
 * @param resolveInterval how often a {@link StompFanIn} resolves the endpoints again, to follow brokers joining and
 *            leaving an alias ({@link #DEFAULT_RESOLVE_INTERVAL} unless a daemon configures its own)
 * @param resolver how host names become addresses ({@link BrokerResolver#SYSTEM} but in tests)
 * @param outages the brokers' outages as the workers made with these settings (and those derived from them) log them
 *            together: one line per retry for all of a daemon's subscriptions on a broker
 */
public record StompSettings(List<StompEndpoint> endpoints, String login, Secret passcode,
                            Duration connectTimeout, Duration receiptTimeout, Duration heartbeat,
                            SSLSocketFactory tls, StompFrameLimits frameLimits, Duration resolveInterval,
                            BrokerResolver resolver, Outages outages) {
    /** The default of the daemons' {@code <prefix>brokers.resolve.interval}. */
    public static final Duration DEFAULT_RESOLVE_INTERVAL = Duration.ofSeconds(60);

    public StompSettings {
        endpoints = List.copyOf(Objects.requireNonNull(endpoints, "endpoints is null"));
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no broker endpoints");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout is null");
        Objects.requireNonNull(receiptTimeout, "receiptTimeout is null");
        Objects.requireNonNull(heartbeat, "heartbeat is null");
        Objects.requireNonNull(frameLimits, "frameLimits is null");
        Objects.requireNonNull(resolver, "resolver is null");
        Objects.requireNonNull(outages, "outages is null");
        if (resolveInterval == null || resolveInterval.isNegative() || resolveInterval.isZero()) {
            throw new IllegalArgumentException("broker resolve interval must be positive, got " + resolveInterval);
        }
    }

    /** Settings resolved by the JVM every {@link #DEFAULT_RESOLVE_INTERVAL}. */
    public StompSettings(List<StompEndpoint> endpoints, String login, String passcode,
                         Duration connectTimeout, Duration receiptTimeout, Duration heartbeat, SSLSocketFactory tls,
                         StompFrameLimits frameLimits) {
        this(endpoints, login, Secret.of(passcode), connectTimeout, receiptTimeout, heartbeat, tls, frameLimits,
                DEFAULT_RESOLVE_INTERVAL, BrokerResolver.SYSTEM, new Outages());
    }

    /** Settings with the {@link StompFrameLimits#DEFAULT} frame limits. */
    public StompSettings(List<StompEndpoint> endpoints, String login, String passcode,
                         Duration connectTimeout, Duration receiptTimeout, Duration heartbeat, SSLSocketFactory tls) {
        this(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, tls, StompFrameLimits.DEFAULT);
    }

    /** Plain TCP settings (no TLS). */
    public StompSettings(List<StompEndpoint> endpoints, String login, String passcode,
                         Duration connectTimeout, Duration receiptTimeout, Duration heartbeat) {
        this(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, null);
    }

    /** The same settings over TLS with {@code factory} (null: plain TCP). */
    public StompSettings withTls(SSLSocketFactory factory) {
        return new StompSettings(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, factory,
                frameLimits, resolveInterval, resolver, outages);
    }

    /** The same settings with other frame limits for what the brokers send. */
    public StompSettings withFrameLimits(StompFrameLimits limits) {
        return new StompSettings(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, tls, limits,
                resolveInterval, resolver, outages);
    }

    /** The same settings resolved again every {@code interval}. */
    public StompSettings withResolveInterval(Duration interval) {
        return new StompSettings(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, tls,
                frameLimits, interval, resolver, outages);
    }

    /** The same settings resolving host names with {@code by}. */
    public StompSettings withResolver(BrokerResolver by) {
        return new StompSettings(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, tls,
                frameLimits, resolveInterval, by, outages);
    }

    /**
     * The same settings reaching {@code broker} only: its endpoint, resolved to its address alone (the TLS check
     * still uses the endpoint's name).
     */
    public StompSettings pinnedTo(StompBroker broker) {
        Objects.requireNonNull(broker, "broker is null");
        return new StompSettings(List.of(broker.endpoint()), login, passcode, connectTimeout, receiptTimeout,
                heartbeat, tls, frameLimits, resolveInterval, host -> List.of(broker.address()), outages);
    }

    /** The brokers the endpoints stand for now. */
    public BrokerSet resolveBrokers() {
        return BrokerSet.resolve(endpoints, resolver);
    }

    public static StompSettings of(List<StompEndpoint> endpoints, String login, String passcode) {
        return new StompSettings(endpoints, login, passcode, Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(10));
    }

    /**
     * As {@link #of(List, String, String)} with a passcode read again from its file whenever the file changes: each
     * connection (a first one, a reconnect after a refused login) logs in with the passcode the file holds then.
     */
    public static StompSettings rotating(List<StompEndpoint> endpoints, String login, Secret passcode) {
        return new StompSettings(endpoints, login, passcode, Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(10), null, StompFrameLimits.DEFAULT, DEFAULT_RESOLVE_INTERVAL,
                BrokerResolver.SYSTEM, new Outages());
    }

    @Override
    public String toString() {
        return "StompSettings[endpoints=" + endpoints + ", login=" + login + ", passcode=" + (passcode == null ? "none" : "***")
                + ", connectTimeout=" + connectTimeout + ", receiptTimeout=" + receiptTimeout + ", heartbeat=" + heartbeat
                + ", tls=" + (tls != null) + ", frameLimits=" + frameLimits + ", resolveInterval=" + resolveInterval + "]";
    }
}
