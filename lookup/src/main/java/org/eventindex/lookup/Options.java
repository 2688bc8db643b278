package org.eventindex.lookup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code --name value} / {@code --name=value} options, {@code --flag}s and positional arguments of a command line. */
record Options(Map<String, String> values, Set<String> flags, List<String> positional) {
    private static final Set<String> VALUED = Set.of("masters", "prefix", "threads", "batch", "stream-type",
            "project", "ami-tag", "dataset", "port", "bind", "max-concurrent", "max-batch", "dataset-cache-ms");

    /** @throws IllegalArgumentException naming an unknown option or one without its value */
    static Options parse(String[] args, Set<String> flagNames) {
        Map<String, String> values = new HashMap<>();
        Set<String> flags = new java.util.HashSet<>();
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                positional.add(a);
                continue;
            }
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(2, eq) : a.substring(2);
            if (flagNames.contains(name) && eq < 0) {
                flags.add(name);
            } else if (VALUED.contains(name)) {
                if (eq > 0) {
                    values.put(name, a.substring(eq + 1));
                } else if (i + 1 < args.length) {
                    values.put(name, args[++i]);
                } else {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
            } else {
                throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        return new Options(values, flags, positional);
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    String required(String name) {
        String v = values.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    int intValue(String name, int fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number: '" + v + "'");
        }
    }
}
