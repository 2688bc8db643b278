package org.eventindex.stomp;

import java.util.ArrayList;
import java.util.List;

/** One broker address. */
public record StompEndpoint(String host, int port) {

    /** Parses {@code host1:port,host2:port}; @throws IllegalArgumentException naming the bad entry */
    public static List<StompEndpoint> parseList(String list) {
        if (list == null || list.isBlank()) {
            throw new IllegalArgumentException("broker endpoint list is empty");
        }
        List<StompEndpoint> out = new ArrayList<>();
        for (String part : list.split(",")) {
            String p = part.trim();
            int colon = p.lastIndexOf(':');
            if (colon <= 0 || colon == p.length() - 1) {
                throw new IllegalArgumentException("broker endpoint '" + p + "' is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(p.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("broker endpoint '" + p + "' has a port that is not a number");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("broker endpoint '" + p + "' has port out of range");
            }
            out.add(new StompEndpoint(p.substring(0, colon), port));
        }
        return List.copyOf(out);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
