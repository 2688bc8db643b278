package org.eventindex;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The project version for every command's {@code --version}, from {@code version.properties}, which the build fills
 * in (common-proto's filtered resources); the same in a module's classes folder, a module jar and the shaded producer
 * jar, where a manifest's {@code Implementation-Version} would only be in some of them. Free of picocli, so that the
 * producer, which keeps its own parser (docs/decisions/0023), reads it without loading picocli.
 */
public final class ProjectVersion {
    private static final String VERSION = load();

    /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String get() {
        return VERSION;
    }

    /**
     * A daemon's first log line, e.g. {@code eventindex-supervisor 0.1.0-SNAPSHOT starting (Java 17.0.13, pid 4242)}:
     * what an operator reads first in its log to know which build runs, on which JVM, as which process.
     */
    public static String startLine(String daemon) {
        return "eventindex-" + daemon + " " + VERSION + " starting (Java " + Runtime.version() + ", pid "
                + ProcessHandle.current().pid() + ")";
    }

    private ProjectVersion() {
    }

    private static String load() {
        try (InputStream in = ProjectVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("org/eventindex/version.properties is missing from the class path:"
                        + " build common-proto with Maven (it fills in the version)");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read org/eventindex/version.properties", e);
        }
    }
}
