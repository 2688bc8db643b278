package org.eventindex.stomp;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The brokers a {@code brokers} setting stands for at one moment: every address of every endpoint (a name of
 * several addresses is several brokers), each broker once (an address and port reached through two names is kept
 * under the first).
 *
 * @param brokers  in the order of the setting, then of the resolver
 * @param failures the endpoints that did not resolve, with the reason
 */
public record BrokerSet(List<StompBroker> brokers, Map<StompEndpoint, String> failures) {
    public BrokerSet {
        brokers = List.copyOf(brokers);
        failures = Map.copyOf(failures);
    }

    /** Resolves every endpoint of {@code endpoints} with {@code resolver}. */
    public static BrokerSet resolve(List<StompEndpoint> endpoints, BrokerResolver resolver) {
        Map<String, StompBroker> byAddress = new LinkedHashMap<>();
        Map<StompEndpoint, String> failures = new LinkedHashMap<>();
        for (StompEndpoint ep : endpoints) {
            List<InetAddress> addresses;
            try {
                addresses = resolver.resolve(ep.host());
            } catch (UnknownHostException e) {
                failures.put(ep, "unknown host");
                continue;
            }
            if (addresses.isEmpty()) {
                failures.put(ep, "no address");
            }
            for (InetAddress a : addresses) {
                byAddress.putIfAbsent(a.getHostAddress() + "#" + ep.port(), new StompBroker(ep, a));
            }
        }
        return new BrokerSet(new ArrayList<>(byAddress.values()), failures);
    }

    /**
     * This resolution, with the brokers {@code previous} had for each endpoint that did not resolve now: a name
     * that fails to resolve for a moment does not unsubscribe its brokers.
     */
    public List<StompBroker> keepingUnresolved(Set<StompBroker> previous) {
        Set<StompBroker> out = new LinkedHashSet<>(brokers);
        for (StompBroker b : previous) {
            if (failures.containsKey(b.endpoint())) {
                out.add(b);
            }
        }
        return List.copyOf(out);
    }
}
