package org.eventindex.distribution;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

/**
 * What is wrong with a distribution's lib/: a test artifact by name (test jars, JUnit, Mockito, the minicluster,
 * S3Proxy, the embedded broker, kudu-test-utils, slf4j-simple, the test kit, deploy, the benchmarks) or by content (JUnit, MiniDFSCluster, S3Proxy,
 * ActiveMQ's BrokerService), one of our jars without the version in its manifest, or Logback or the producer jar
 * missing.
 */
final class LibContents {
    private static final Pattern TEST_ARTIFACT = Pattern.compile("(?i).*(-tests?\\.jar|junit|mockito|minicluster|"
            + "s3proxy|activemq-broker|kahadb|kudu-test-utils|slf4j-simple|jazzer|duckdb|"
            + "eventindex-(test-kit|deploy|benchmarks)-).*");

    private LibContents() {
    }

    /**
     * What is wrong with one jar of a runtime class path (lib/, or bin/eventindex's in a source checkout): a test
     * artifact by name or content, or one of our jars without the version in its manifest. Empty when nothing is.
     */
    static List<String> jarProblems(Path jar, String version) throws IOException {
        List<String> problems = new ArrayList<>();
        String name = jar.getFileName().toString();
        if (!name.endsWith(".jar")) {
            return List.of(name + ": not a jar");
        }
        if (TEST_ARTIFACT.matcher(name).matches()) {
            problems.add(name + ": a test artifact by its name");
        }
        try (JarFile j = new JarFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = j.entries(); e.hasMoreElements(); ) {
                String entry = e.nextElement().getName();
                if (entry.startsWith("org/junit/") || entry.contains("MiniDFSCluster")
                        || entry.startsWith("org/gaul/s3proxy/")
                        || entry.startsWith("org/apache/activemq/broker/BrokerService")) {
                    problems.add(name + ": holds test code " + entry);
                    break;
                }
            }
            if (name.startsWith("eventindex-")) {
                Attributes main = j.getManifest() == null ? new Attributes() : j.getManifest().getMainAttributes();
                if (!version.equals(main.getValue("Implementation-Version"))
                        || main.getValue("Implementation-Title") == null) {
                    problems.add(name + ": manifest without Implementation-Title and -Version " + version);
                }
            }
        }
        return problems;
    }

    /** Every problem of {@code lib}, each naming the jar; empty when there is none. */
    static List<String> problems(Path lib, String version) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.sorted().toList();
        }
        List<String> problems = new ArrayList<>();
        for (Path jar : jars) {
            problems.addAll(jarProblems(jar, version));
        }
        if (jars.stream().noneMatch(j -> j.getFileName().toString().startsWith("logback-classic-1.5."))) {
            problems.add("no logback-classic 1.5");
        }
        if (!Files.isRegularFile(lib.resolve("eventindex-producer.jar"))) {
            problems.add("no eventindex-producer.jar");
        }
        return problems;
    }
}
