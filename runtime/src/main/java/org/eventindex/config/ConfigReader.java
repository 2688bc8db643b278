package org.eventindex.config;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.eventindex.io.FileReason;

/**
 * Reads typed values of a daemon's documented keys from a properties file and the environment. Unset keys take the
 * default from the key table; keys under the daemon's prefix that the table does not know are refused (a typo must
 * not silently fall back to a default). Every error names the key and the value. Secrets come from a file named by
 * a {@code *.file} key or from the key's environment variable, never from the properties themselves.
 */
public final class ConfigReader {
    private final Map<String, ConfigKey> keys = new HashMap<>();
    private final Properties props;
    private final Map<String, String> env;

    /**
     * @param prefix every key of the daemon starts with it (e.g. {@code "supervisor."})
     * @throws IllegalArgumentException naming the first property under {@code prefix} that is not in {@code table}
     */
    public ConfigReader(String prefix, List<ConfigKey> table, Properties props, Map<String, String> env) {
        Objects.requireNonNull(prefix, "prefix is null");
        this.props = Objects.requireNonNull(props, "props is null");
        this.env = Objects.requireNonNull(env, "env is null");
        for (ConfigKey k : table) {
            keys.put(k.name(), k);
        }
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(prefix) && !keys.containsKey(name)) {
                throw new IllegalArgumentException("unknown configuration key '" + name + "'");
            }
        }
    }

    /** Loads a properties file; the error names the file and what it configures. */
    public static Properties load(Path file, String what) throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (IOException e) {
            throw new IOException("cannot read " + what + " configuration " + file + ": " + FileReason.of(e), e);
        }
        return props;
    }

    /** The property, or the key's default; trimmed. */
    public String text(String key) {
        return props.getProperty(key, key(key).defaultValue()).trim();
    }

    /** The property only when it is set to something non-blank (for defaults computed at run time). */
    public Optional<String> explicit(String key) {
        key(key);
        String v = props.getProperty(key, "").trim();
        return v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    public long longValue(String key) {
        String v = text(key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " '" + v + "' is not a whole number", e);
        }
    }

    public int integer(String key) {
        long v = longValue(key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + " is out of range: " + v);
        }
        return (int) v;
    }

    public Duration duration(String key) {
        return parseDuration(key, text(key));
    }

    /** An absolute URI with a scheme. */
    public URI uri(String key) {
        String v = text(key);
        try {
            URI u = new URI(v);
            if (u.getScheme() == null) {
                throw new IllegalArgumentException(key + " '" + v + "' has no scheme");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(key + " '" + v + "' is not a URI: " + e.getReason(), e);
        }
    }

    /** The property, else the key's environment variable, else empty (e.g. an access key id). */
    public String textOrEnv(String key) {
        String v = text(key);
        return v.isEmpty() ? fromEnv(key(key).envVar()).orElse("") : v;
    }

    /**
     * A secret: the content of the file named by {@code fileKey}, else the key's environment variable, else null.
     *
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException when the file is empty or readable by group or others (see {@link SecretFile})
     */
    public String secret(String fileKey) throws IOException {
        String file = text(fileKey);
        if (file.isEmpty()) {
            return fromEnv(key(fileKey).envVar()).orElse(null);
        }
        return SecretFile.read(Path.of(file), fileKey);
    }

    /** Parses {@code PT30S}-style ISO-8601 or a whole number with unit {@code ms, s, m, h}. */
    public static Duration parseDuration(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("p")) {
                return Duration.parse(value.trim());
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            long n = Long.parseLong(v.substring(0, Math.max(0, v.length() - 1)).trim());
            switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
                case 's': return Duration.ofSeconds(n);
                case 'm': return Duration.ofMinutes(n);
                case 'h': return Duration.ofHours(n);
                default: break;
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // fall through to the error naming the key
        }
        throw new IllegalArgumentException(key + " '" + value + "' is not a duration (e.g. 500ms, 30s, 5m, 1h, PT30S)");
    }

    private Optional<String> fromEnv(String envVar) {
        String v = envVar == null ? null : env.get(envVar);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    private ConfigKey key(String name) {
        ConfigKey k = keys.get(name);
        if (k == null) {
            throw new IllegalStateException("configuration key '" + name + "' is missing from the key table");
        }
        return k;
    }
}
