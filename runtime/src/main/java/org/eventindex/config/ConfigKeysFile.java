package org.eventindex.config;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A daemon's key table as a commented properties file, which {@code config-keys} prints: every key set to its default
 * with its meaning in comments above it, so that the output is a valid starting configuration. A default computed at
 * run time ({@link ConfigKey#computed()}) is written as an empty value, which the daemons read as "compute it", with
 * what it is computed from in the comment.
 */
public final class ConfigKeysFile {
    /** Comment lines stay within this width. */
    private static final int WIDTH = 100;

    private ConfigKeysFile() {
    }

    /** Prints {@code keys} as a properties file, after a comment header naming what it configures. */
    public static void print(String title, List<ConfigKey> keys, PrintStream out) {
        Objects.requireNonNull(title, "title is null");
        Objects.requireNonNull(keys, "keys is null");
        Objects.requireNonNull(out, "out is null");
        for (String line : wrap(title)) {
            out.println("# " + line);
        }
        for (ConfigKey k : keys) {
            out.println();
            String doc = k.doc();
            if (k.envVar() != null) {
                doc += " Environment variable: " + k.envVar() + ".";
            }
            if (k.computed()) {
                doc += " Default (when empty): " + k.defaultValue().substring(1, k.defaultValue().length() - 1)
                        + ".";
            }
            for (String line : wrap(doc)) {
                out.println("# " + line);
            }
            String value = escapeValue(k.computed() ? "" : k.defaultValue());
            out.println(escapeKey(k.name()) + (value.isEmpty() ? " =" : " = " + value));
        }
    }

    private static List<String> wrap(String text) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.strip().split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > WIDTH) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.length() == 0 ? "" : " ").append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static String escapeKey(String key) {
        return key.replace("\\", "\\\\").replace(" ", "\\ ").replace("=", "\\=").replace(":", "\\:");
    }

    /** A leading blank and backslashes are escaped as java.util.Properties needs them; the rest is literal. */
    private static String escapeValue(String value) {
        String v = value.replace("\\", "\\\\");
        return v.startsWith(" ") ? "\\" + v : v;
    }
}
