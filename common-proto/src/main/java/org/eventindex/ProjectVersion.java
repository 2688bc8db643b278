package org.eventindex;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The project version and the git commit of the build for every command's {@code --version} and the daemons'
 * {@code eventindex_build_info}, from {@code version.properties}, which the build fills in (common-proto's filtered
 * resources, the commit from the parent POM's {@code git-info}); the same in a module's classes folder, a module jar
 * and the shaded producer jar, where a manifest's {@code Implementation-Version} would only be in some of them. Free of
 * picocli, so that the producer, which keeps its own parser (docs/decisions/0023), reads it without loading picocli.
 */
public final class ProjectVersion {
    /** {@link #commit()} and {@link #dirty()} of a build made outside a git checkout (a source tarball). */
    public static final String UNKNOWN = "unknown";

    private static final Properties BUILD = load();
    private static final String VERSION = BUILD.getProperty("version");
    private static final String COMMIT = filledIn(BUILD.getProperty("commit"));
    private static final String DIRTY = filledIn(BUILD.getProperty("dirty"));

    /** The project version, e.g. {@code 0.2.0-SNAPSHOT}. */
    public static String get() {
        return VERSION;
    }

    /** The git commit the build was made from (40 hex digits), or {@value #UNKNOWN}. */
    public static String commit() {
        return COMMIT;
    }

    /**
     * {@code true} when a tracked file of the build's checkout differed from {@link #commit()}, {@code false} when none
     * did, {@value #UNKNOWN} without a commit.
     */
    public static String dirty() {
        return DIRTY;
    }

    /**
     * What {@code --version} prints after the command's name: the version and the commit, e.g.
     * {@code 0.2.0-SNAPSHOT (commit f747a05f926620769f23fce1b924dd17d5ef14a9)}, with {@code , dirty tree} inside the
     * parentheses when the build's checkout had changes not committed.
     */
    public static String describe() {
        return VERSION + " (commit " + COMMIT + ("true".equals(DIRTY) ? ", dirty tree)" : ")");
    }

    /**
     * A daemon's first log line, e.g. {@code eventindex-supervisor 0.2.0-SNAPSHOT starting (Java 17.0.13, pid 4242)}:
     * what an operator reads first in its log to know which build runs, on which JVM, as which process.
     */
    public static String startLine(String daemon) {
        return "eventindex-" + daemon + " " + VERSION + " starting (Java " + Runtime.version() + ", pid "
                + ProcessHandle.current().pid() + ")";
    }

    private ProjectVersion() {
    }

    /** A key that the build did not fill in (its {@code ${...}} left as it is) is {@value #UNKNOWN}. */
    private static String filledIn(String value) {
        return value == null || value.isBlank() || value.contains("${") ? UNKNOWN : value;
    }

    private static Properties load() {
        try (InputStream in = ProjectVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("org/eventindex/version.properties is missing from the class path:"
                        + " build common-proto with Maven (it fills in the version)");
            }
            Properties p = new Properties();
            p.load(in);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read org/eventindex/version.properties", e);
        }
    }
}
