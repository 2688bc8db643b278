package org.eventindex.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the real Kudu binaries are: the folder of the {@code kudu} wrapper that the test kit's build writes
 * ({@code <repo>/.kudu-binary/bin/kudu}, which sets the library path for Kudu's processes only). Taken, in order, from
 * the system property {@value #PROPERTY} (the build sets it for every test JVM, {@code bin/eventindex} and the demo
 * scripts too), the environment variable {@value #ENV}, or the nearest {@code .kudu-binary/bin} above the working
 * folder.
 */
public final class KuduBinaries {
    /** System property naming the wrapper's folder. */
    public static final String PROPERTY = "kuduBinDir";
    /** Environment variable consulted when {@value #PROPERTY} is not set. */
    public static final String ENV = "EI_KUDU_BIN_DIR";

    private KuduBinaries() {
    }

    /**
     * @return the folder holding the executable {@code kudu} wrapper
     * @throws IllegalStateException naming the setting and how to unpack the binaries when there is none
     */
    public static Path binDir() {
        String configured = System.getProperty(PROPERTY);
        String source = "system property " + PROPERTY;
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(ENV);
            source = "environment variable " + ENV;
        }
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured).toAbsolutePath();
            if (!Files.isExecutable(dir.resolve("kudu"))) {
                throw new IllegalStateException(source + " is " + dir + " but it holds no executable 'kudu'; point it"
                        + " at the wrapper directory <repo>/.kudu-binary/bin written by the test-kit build");
            }
            return dir;
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path candidate = d.resolve(".kudu-binary").resolve("bin");
            if (Files.isExecutable(candidate.resolve("kudu"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("No Kudu binaries: set the system property " + PROPERTY
                + " or the environment variable " + ENV + " to <repo>/.kudu-binary/bin (run"
                + " 'mvn -o -f test-kit/pom.xml generate-resources' once to unpack it)");
    }

    /** The {@code kudu} wrapper itself. */
    public static Path kudu() {
        return binDir().resolve("kudu");
    }
}
