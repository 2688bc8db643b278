package org.eventindex.kudu;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * {@code --name value} options of one command line, checked against the names a subcommand accepts.
 */
final class CliOptions {
    /** A command line the user has to correct; the message says what is wrong. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private final Map<String, String> values;

    private CliOptions(Map<String, String> values) {
        this.values = values;
    }

    static CliOptions parse(String[] args, int from, Set<String> accepted) throws UsageException {
        requireNonNull(args, "args is null");
        Map<String, String> values = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(2, eq);
                value = arg.substring(eq + 1);
            } else if (arg.startsWith("--")) {
                name = arg.substring(2);
                if (i + 1 >= args.length) {
                    throw new UsageException("option --" + name + " needs a value");
                }
                value = args[++i];
            } else {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            if (!accepted.contains(name)) {
                throw new UsageException("unknown option --" + name);
            }
            if (values.put(name, value) != null) {
                throw new UsageException("option --" + name + " given twice");
            }
        }
        return new CliOptions(values);
    }

    String required(String name) throws UsageException {
        String v = values.get(name);
        if (v == null || v.isBlank()) {
            throw new UsageException("option --" + name + " is required");
        }
        return v;
    }

    /** A required dataset name, checked against the naming rules before it can become a Kudu key. */
    org.eventindex.names.DatasetName dataset(String name) throws UsageException {
        String v = required(name);
        try {
            return org.eventindex.names.DatasetName.parse(v);
        } catch (IllegalArgumentException e) {
            throw new UsageException("option --" + name + ": " + e.getMessage());
        }
    }

    String optional(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    int integer(String name, int defaultValue) throws UsageException {
        return values.containsKey(name) ? parseInt(name, values.get(name)) : defaultValue;
    }

    int requiredInteger(String name) throws UsageException {
        return parseInt(name, required(name));
    }

    private static int parseInt(String name, String value) throws UsageException {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("option --" + name + " must be an integer: '" + value + "'");
        }
    }
}
