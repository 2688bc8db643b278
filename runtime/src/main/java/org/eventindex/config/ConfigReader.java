package org.eventindex.config;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Reads typed values of a daemon's documented keys from a properties file and the environment. Unset keys take the
 * default from the key table; every key that the table does not know is refused, whatever its prefix (a typo,
 * a misspelt prefix or another daemon's key must not silently fall back to a default), with its file and line
 * when read from a {@link ConfigFile} and the nearest known key. Every error names the key and the value.
 * Secrets come from a file named by a {@code *.file} key or from the key's environment variable, never from the
 * properties themselves.
 */
public final class ConfigReader {
    /** The prefixes of the daemons that read a properties file, to name the owner of a foreign key. */
    private static final List<String> DAEMONS = List.of("supervisor.", "consumer.");
    private final Map<String, ConfigKey> keys = new LinkedHashMap<>();
    private final Properties props;
    private final Map<String, String> env;

    /**
     * @param prefix every key of the daemon starts with it (e.g. {@code "supervisor."})
     * @param props  the properties; a {@link ConfigFile} gives the errors its file and line
     * @throws IllegalArgumentException naming the first property (in line order) that is not in {@code table}: a
     *                                  key of another daemon, a misspelt prefix or key, with the nearest known key
     */
    public ConfigReader(String prefix, List<ConfigKey> table, Properties props, Map<String, String> env) {
        Objects.requireNonNull(prefix, "prefix is null");
        this.props = Objects.requireNonNull(props, "props is null");
        this.env = Objects.requireNonNull(env, "env is null");
        for (ConfigKey k : table) {
            keys.put(k.name(), k);
        }
        Comparator<String> inFileOrder = props instanceof ConfigFile cf
                ? Comparator.comparingInt((String n) -> cf.line(n).orElse(Integer.MAX_VALUE)).thenComparing(n -> n)
                : Comparator.naturalOrder();
        props.stringPropertyNames().stream().filter(n -> !keys.containsKey(n)).min(inFileOrder).ifPresent(n -> {
            String where = props instanceof ConfigFile cf ? cf.where(n) + ": " : "";
            throw new IllegalArgumentException(where + unknown(prefix, n));
        });
    }

    /** Why {@code name} is refused and what was probably meant. */
    private String unknown(String prefix, String name) {
        String daemon = prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
        StringBuilder m = new StringBuilder();
        String foreign = DAEMONS.stream().filter(d -> !d.equals(prefix) && name.startsWith(d)).findFirst()
                .orElse(null);
        if (foreign != null) {
            m.append("'").append(name).append("' is a key of the ").append(foreign, 0, foreign.length() - 1)
                    .append("'s configuration, not of the ").append(daemon).append("'s");
        } else {
            m.append("unknown configuration key '").append(name).append("'");
        }
        nearest(name).ifPresent(k -> m.append(" (did you mean '").append(k).append("'?)"));
        m.append("; every key of this file starts with '").append(prefix).append("' and is listed by: eventindex ")
                .append(daemon).append(" config-keys");
        return m.toString();
    }

    /** The known key nearest to {@code name} (edit distance, ignoring case) when it is near enough to be a typo. */
    Optional<String> nearest(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : keys.keySet()) {
            int d = distance(lower, k.toLowerCase(Locale.ROOT));
            if (d < bestDistance || d == bestDistance && k.compareTo(best) < 0) {
                best = k;
                bestDistance = d;
            }
        }
        return best != null && bestDistance <= Math.max(2, name.length() / 4) ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance: insertions, deletions and substitutions of one character. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }

    /**
     * Loads a daemon's properties file with the line of every key; a duplicate key is refused (see
     * {@link ConfigFile}). The error names the file and what it configures.
     */
    public static ConfigFile load(Path file, String what) throws IOException {
        return ConfigFile.load(file, what);
    }

    /** The error {@code e} naming {@code file}, unless its message already starts with it (a located error). */
    public static IllegalArgumentException inFile(Path file, IllegalArgumentException e) {
        String m = String.valueOf(e.getMessage());
        return m.startsWith(file.toString()) ? e : new IllegalArgumentException(file + ": " + m, e);
    }

    /**
     * Every key of the table with its effective value (the property or the default) as an information endpoint may
     * show it: secrets and the paths of secrets only as {@code (set)} or {@code (not set)} ({@link ConfigKey#shown}),
     * sorted by key.
     */
    public Map<String, String> shown() {
        Map<String, String> shown = new java.util.TreeMap<>();
        for (ConfigKey k : keys.values()) {
            shown.put(k.name(), k.shown(text(k.name()), fromEnv(k.envVar()).isPresent()));
        }
        return java.util.Collections.unmodifiableMap(shown);
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

    /**
     * As {@link #secret}, as a {@link Secret} read again whenever its file changes (a rotated passcode or key is
     * used from the next connection or request on); null when neither the file nor the variable is set.
     */
    public Secret rotatingSecret(String fileKey) throws IOException {
        String file = text(fileKey);
        if (file.isEmpty()) {
            return Secret.of(fromEnv(key(fileKey).envVar()).orElse(null));
        }
        return Secret.fromFile(Path.of(file), fileKey);
    }

    /**
     * A value that is not secret but must be rotatable with a secret (an S3 access key beside its secret key): the
     * file named by {@code fileKey} (mode 0600, read again when it changes), else {@code textKey} or its environment
     * variable (fixed), else the empty value.
     *
     * @throws IllegalArgumentException when both keys are set
     */
    public Secret rotatingText(String textKey, String fileKey) throws IOException {
        if (!text(fileKey).isEmpty()) {
            if (!text(textKey).isEmpty()) {
                throw new IllegalArgumentException(textKey + " and " + fileKey + " are both set: give one");
            }
            return Secret.fromFile(Path.of(text(fileKey)), fileKey);
        }
        return Secret.of(textOrEnv(textKey));
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
