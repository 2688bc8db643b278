package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks a {@code config-keys} output as an operator uses it, as a properties file: {@link Properties} loads it, it
 * holds exactly the table's keys, each set to its default (empty for a computed one), each with its meaning in the
 * comment lines right above it.
 */
public final class ConfigKeysFileCheck {
    /**
     * What the check needs of a documented key, the fields of the runtime module's {@code ConfigKey} (the kit does not
     * depend on that module, so that its own tests can use the kit): callers map their key table with
     * {@code new Key(k.name(), k.defaultValue(), k.envVar(), k.doc())}.
     *
     * @param envVar the environment variable that supplies the key, or null
     */
    public record Key(String name, String defaultValue, String envVar, String doc) {
        /** True when the default is computed at run time ({@code <...>}), as {@code ConfigKey.computed()} says. */
        public boolean computed() {
            return defaultValue.length() > 1 && defaultValue.startsWith("<") && defaultValue.endsWith(">");
        }
    }

    private ConfigKeysFileCheck() {
    }

    /** @return the output loaded, for the daemon's own reader to build its configuration from */
    public static Properties assertValid(String output, List<Key> keys) {
        Properties loaded = new Properties();
        try {
            loaded.load(new StringReader(output));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertEquals(keys.stream().map(Key::name).collect(Collectors.toSet()), loaded.stringPropertyNames(),
                "the keys of the output");
        List<String> lines = output.lines().toList();
        for (Key k : keys) {
            assertEquals(k.computed() ? "" : k.defaultValue(), loaded.getProperty(k.name()), k.name());
            int at = -1;
            for (int i = 0; i < lines.size() && at < 0; i++) {
                at = lines.get(i).startsWith(k.name() + " =") ? i : -1;
            }
            assertTrue(at > 0, k.name() + " is not at the start of a line after its comment");
            StringBuilder comment = new StringBuilder();
            for (int i = at - 1; i >= 0 && lines.get(i).startsWith("# "); i--) {
                comment.insert(0, lines.get(i).substring(2) + " ");
            }
            String text = comment.toString().replaceAll("\\s+", " ");
            assertTrue(text.contains(k.doc().strip().replaceAll("\\s+", " ")), k.name() + ": " + text);
            if (k.envVar() != null) {
                assertTrue(text.contains(k.envVar()), k.name() + " does not name " + k.envVar() + ": " + text);
            }
            if (k.computed()) {
                assertTrue(text.contains("Default (when empty): "), k.name() + ": " + text);
            }
        }
        assertTrue(Set.copyOf(lines).stream().noneMatch(l -> l.length() > 120 && l.startsWith("#")),
                "a comment line is longer than 120 columns");
        return loaded;
    }
}
