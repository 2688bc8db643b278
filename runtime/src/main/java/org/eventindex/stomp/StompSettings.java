package org.eventindex.stomp;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLSocketFactory;

/**
 * How to reach the brokers. Every endpoint (and every address its host name resolves to) is tried in order.
 * The passcode is never printed by {@link #toString()}.
 *
 * @param tls when not null, every connection is TLS ({@code stomp+ssl}) through this factory, with the broker's
 *            certificate checked against the endpoint's host name; null means plain TCP
 * @param frameLimits the largest frames accepted from the brokers ({@link StompFrameLimits#DEFAULT} unless a daemon
 *            configures its own)
 */
public record StompSettings(List<StompEndpoint> endpoints, String login, String passcode,
                            Duration connectTimeout, Duration receiptTimeout, Duration heartbeat,
                            SSLSocketFactory tls, StompFrameLimits frameLimits) {

    public StompSettings {
        endpoints = List.copyOf(Objects.requireNonNull(endpoints, "endpoints is null"));
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no broker endpoints");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout is null");
        Objects.requireNonNull(receiptTimeout, "receiptTimeout is null");
        Objects.requireNonNull(heartbeat, "heartbeat is null");
        Objects.requireNonNull(frameLimits, "frameLimits is null");
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
                frameLimits);
    }

    /** The same settings with other frame limits for what the brokers send. */
    public StompSettings withFrameLimits(StompFrameLimits limits) {
        return new StompSettings(endpoints, login, passcode, connectTimeout, receiptTimeout, heartbeat, tls, limits);
    }

    public static StompSettings of(List<StompEndpoint> endpoints, String login, String passcode) {
        return new StompSettings(endpoints, login, passcode, Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(10));
    }

    @Override
    public String toString() {
        return "StompSettings[endpoints=" + endpoints + ", login=" + login + ", passcode=" + (passcode == null ? "none" : "***")
                + ", connectTimeout=" + connectTimeout + ", receiptTimeout=" + receiptTimeout + ", heartbeat=" + heartbeat
                + ", tls=" + (tls != null) + ", frameLimits=" + frameLimits + "]";
    }
}
