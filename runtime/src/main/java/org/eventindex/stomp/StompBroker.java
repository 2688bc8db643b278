package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;

/**
 * One broker: an address a configured endpoint resolved to. The connection goes to {@link #address()}; the STOMP
 * {@code host} header and the TLS host-name check use the configured name ({@link #endpoint()}{@code .host()}), so
 * that a broker reached through an alias must present a certificate for the name the client was given (the alias,
 * or a name the certificate lists).
 */
public record StompBroker(StompEndpoint endpoint, InetAddress address) {
    public StompBroker {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(address, "address is null");
    }

    /** {@code mq.example.org:61614/10.0.0.3}, or {@code 10.0.0.3:61614} when the name is the address. */
    @Override
    public String toString() {
        String ip = address.getHostAddress();
        return ip.equals(endpoint.host()) ? endpoint.toString() : endpoint + "/" + ip;
    }
}
