package org.eventindex.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Properties;
import org.eventindex.io.FileReason;

/**
 * The properties of a daemon's configuration file with the line each key was set on, so that an error names the file
 * and the line. The syntax is {@link Properties#load(java.io.Reader)}'s (comments, {@code key=value},
 * {@code key: value}, {@code key value}, escapes, a backslash continuing the line), read as ISO-8859-1 like
 * {@link Properties#load(java.io.InputStream)}; unlike it, a key set twice is refused with both line numbers instead
 * of the last one silently winning.
 */
public final class ConfigFile extends Properties {
    private final Path file;
    private final Map<String, Integer> lines = new HashMap<>();

    private ConfigFile(Path file) {
        this.file = file;
    }

    /**
     * @param what what the file configures (e.g. {@code supervisor}), for the error message
     * @throws IOException              naming the file and the reason when it cannot be read
     * @throws IllegalArgumentException {@code FILE:LINE: duplicate key 'k' (first set on line N)}
     */
    public static ConfigFile load(Path file, String what) throws IOException {
        Objects.requireNonNull(file, "file is null");
        List<String> physical;
        try {
            physical = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IOException("cannot read " + what + " configuration " + file + ": " + FileReason.of(e), e);
        }
        ConfigFile cf = new ConfigFile(file);
        int i = 0;
        while (i < physical.size()) {
            int first = i + 1;
            StringBuilder logical = new StringBuilder(physical.get(i));
            boolean comment = isComment(physical.get(i));
            while (!comment && continues(physical.get(i)) && i + 1 < physical.size()) {
                i++;
                logical.append('\n').append(physical.get(i));
            }
            i++;
            if (comment) {
                continue;
            }
            cf.add(logical.toString(), first);
        }
        return cf;
    }

    /** The file these properties were read from. */
    public Path file() {
        return file;
    }

    /** The line (1-based) the key was set on, if it was set in the file. */
    public OptionalInt line(String key) {
        Integer n = lines.get(key);
        return n == null ? OptionalInt.empty() : OptionalInt.of(n);
    }

    /** {@code FILE:LINE} of the key, or the file alone when the key is not in it. */
    public String where(String key) {
        OptionalInt n = line(key);
        return n.isPresent() ? file + ":" + n.getAsInt() : file.toString();
    }

    private void add(String logical, int line) {
        Properties one = new Properties();
        try {
            one.load(new StringReader(logical));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ":" + line + ": " + e.getMessage(), e);
        }
        for (String key : one.stringPropertyNames()) {
            Integer before = lines.putIfAbsent(key, line);
            if (before != null) {
                throw new IllegalArgumentException(file + ":" + line + ": duplicate key '" + key
                        + "' (first set on line " + before + "); keep one of the two lines");
            }
            setProperty(key, one.getProperty(key));
        }
    }

    private static boolean isComment(String line) {
        String s = line.stripLeading();
        return s.startsWith("#") || s.startsWith("!");
    }

    /** An odd number of trailing backslashes continues the logical line. */
    private static boolean continues(String line) {
        int n = 0;
        for (int j = line.length() - 1; j >= 0 && line.charAt(j) == '\\'; j--) {
            n++;
        }
        return n % 2 == 1;
    }

    @Override
    public synchronized boolean equals(Object o) {
        return super.equals(o);
    }

    @Override
    public synchronized int hashCode() {
        return super.hashCode();
    }
}
