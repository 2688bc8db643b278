package org.eventindex.stomp;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a configured broker host name into the addresses it stands for. A DNS alias of several independent brokers
 * resolves to one address per broker, and each address is a broker of its own ({@link BrokerSet}).
 *
 * <p>{@link #SYSTEM} asks the JVM's resolver (DNS, {@code /etc/hosts}; the JVM caches an answer for
 * {@code networkaddress.cache.ttl}, 30 s by default). Tests give a resolver of their own, or run a child JVM with
 * {@code -Djdk.net.hosts.file}.
 */
@FunctionalInterface
public interface BrokerResolver {
    /** The JVM's resolver. */
    BrokerResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    /**
     * @return every address of {@code host}, in the resolver's order; never empty
     * @throws UnknownHostException when the name does not resolve
     */
    List<InetAddress> resolve(String host) throws UnknownHostException;
}
