package org.eventindex.distribution;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The driver JVM of {@code eventindex rebuild|verify} (SparkSubmit, started by bin/eventindex) gets the Java 17 options
 * Spark needs from jvm/rebuild.options and jvm/verify.options: the same options, in the same order, as the build's
 * {@code spark.java.options}, which the rebuild module's tests and the source build's bin/eventindex run with.
 */
final class SparkJvmOptionsTest {
    private static final Path DEFAULTS = Path.of("src/dist/jvm");

    @Test
    void theSparkCommandsDefaultsHoldTheBuildsSparkJavaOptions() throws IOException {
        String property = System.getProperty("spark.java.options", "");
        assertFalse(property.isBlank(), "spark.java.options is not set for the tests (distribution/pom.xml)");
        List<String> expected = List.of(property.trim().split("\\s+"));
        for (String command : List.of("rebuild", "verify")) {
            List<String> options = Files.readAllLines(DEFAULTS.resolve(command + ".options")).stream()
                    .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("-Xmx"))
                    .toList();
            assertEquals(expected, options, "jvm/" + command + ".options");
        }
    }
}
