package org.eventindex.rebuild;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options a Spark driver or executor needs on Java 17 (the parent pom's {@code spark.java.options}: the
 * {@code --add-opens} Spark's own code relies on), as failsafe passes them to the rebuild's integration tests.
 */
final class SparkJvmOptions {
    static final String PROPERTY = "spark.java.options";

    private SparkJvmOptions() {
    }

    /** A new, modifiable list of the options; a clear failure when the test was not started by failsafe. */
    static List<String> get() {
        String options = System.getProperty(PROPERTY);
        if (options == null || options.isBlank()) {
            throw new IllegalStateException("system property " + PROPERTY + " is not set: run the rebuild's"
                    + " integration tests through Maven (mvn verify -pl rebuild -am -Dit.test=NAME), whose failsafe"
                    + " passes the parent pom's " + PROPERTY + " (the --add-opens Spark needs on Java 17)");
        }
        return new ArrayList<>(List.of(options.trim().split(" +")));
    }
}
