package org.eventindex.ops;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The query string of a request to a daemon's HTTP endpoint ({@code ?a=1&b=x,y&b=z}): the one parser every resource
 * uses ({@link OpsHttpServer.JsonResource}, the lookup service). Parameters are split on {@code &}, each name and value
 * is URL-decoded as UTF-8 ({@code +} is a space), a parameter without {@code =} has the value {@code ""}, empty
 * parameters ({@code a=1&&b=2}) are skipped; a name may repeat, in order.
 */
public final class QueryString {
    private static final QueryString EMPTY = new QueryString(List.of());

    private final List<Map.Entry<String, String>> params;

    private QueryString(List<Map.Entry<String, String>> params) {
        this.params = params;
    }

    /**
     * @param raw the raw query (e.g. {@code URI.getRawQuery()}), null or empty for none
     * @throws IllegalArgumentException naming the parameter when a {@code %} escape is malformed
     */
    public static QueryString parse(String raw) {
        if (raw == null || raw.isEmpty()) {
            return EMPTY;
        }
        List<Map.Entry<String, String>> params = new ArrayList<>();
        for (String param : raw.split("&")) {
            if (param.isEmpty()) {
                continue;
            }
            int eq = param.indexOf('=');
            try {
                params.add(Map.entry(decode(eq < 0 ? param : param.substring(0, eq)),
                        eq < 0 ? "" : decode(param.substring(eq + 1))));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("query parameter '" + param + "' is not URL-encoded: "
                        + e.getMessage(), e);
            }
        }
        return new QueryString(List.copyOf(params));
    }

    /** Every value of {@code name}, in order; empty when it is not given. */
    public List<String> all(String name) {
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, String> p : params) {
            if (p.getKey().equals(name)) {
                values.add(p.getValue());
            }
        }
        return Collections.unmodifiableList(values);
    }

    /** The last value of {@code name} (a later one overrides an earlier one), if given. */
    public Optional<String> get(String name) {
        String value = null;
        for (Map.Entry<String, String> p : params) {
            if (p.getKey().equals(name)) {
                value = p.getValue();
            }
        }
        return Optional.ofNullable(value);
    }

    /** The names given, in the order they first appear. */
    public Set<String> names() {
        Set<String> names = new LinkedHashSet<>();
        params.forEach(p -> names.add(p.getKey()));
        return names;
    }

    /**
     * This query, when it names no parameter outside {@code known}.
     *
     * @throws IllegalArgumentException naming the first unknown parameter and the known ones, in their order
     */
    public QueryString only(List<String> known) {
        for (String name : names()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown parameter '" + name + "' (known: "
                        + String.join(", ", known) + ")");
            }
        }
        return this;
    }

    public boolean isEmpty() {
        return params.isEmpty();
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
