package org.eventindex.distribution;

import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distribution's tarball unpacked into a folder, as an operator installs it, and its bin/eventindex run with an
 * environment of the test's choosing (none of the test's own EVENTINDEX_, JAVA_, Hadoop, Spark or YARN variables).
 */
record InstalledTree(Path home) {
    static final String VERSION = System.getProperty("ei.project.version", "0.2.0-SNAPSHOT");
    static final Path TARBALL = Path.of(System.getProperty("ei.distribution.tarball",
            "target/eventindex-" + VERSION + ".tar.gz")).toAbsolutePath();

    /** The result of a command run to its end: exit status and output (standard error included). */
    record Run(int exit, String output) {
    }

    static InstalledTree unpack(Path into) throws IOException, InterruptedException {
        return unpack(TARBALL, VERSION, into);
    }

    /** The tarball of {@code version} (this build's or a release's) unpacked into {@code into}. */
    static InstalledTree unpack(Path tarball, String version, Path into) throws IOException, InterruptedException {
        assertTrue(Files.isRegularFile(tarball), "no tarball " + tarball + ": build with mvn -DskipTests package");
        Process tar = new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", into.toString())
                .redirectErrorStream(true).start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(tar.waitFor(2, TimeUnit.MINUTES), "tar did not finish: " + out);
        assertEquals(0, tar.exitValue(), "tar xzf " + tarball + ": " + out);
        return new InstalledTree(into.resolve("eventindex-" + version));
    }

    Path launcher() {
        return home.resolve("bin/eventindex");
    }

    /** {@code bin/eventindex args...}, its output to {@code log}. */
    Process start(Map<String, String> env, Path log, String... args) throws IOException {
        return start(Host.local(), env, log, args);
    }

    /** {@code bin/eventindex args...} on {@code host} ({@link Host#command}), its output to {@code log}. */
    Process start(Host host, Map<String, String> env, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(launcher().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(host.command(command)).directory(home.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("EVENTINDEX_") || k.startsWith("EI_")
                || k.startsWith("JAVA_") || k.startsWith("HADOOP_") || k.startsWith("SPARK_") || k.startsWith("YARN_") || k.equals("CLASSPATH"));
        pb.environment().putAll(env);
        return pb.start();
    }

    /** {@code bin/eventindex args...} to its end, within {@code minutes}. */
    Run run(Map<String, String> env, Path log, int minutes, String... args) throws IOException,
            InterruptedException {
        return run(Host.local(), env, log, minutes, args);
    }

    /** {@code bin/eventindex args...} on {@code host} to its end, within {@code minutes}. */
    Run run(Host host, Map<String, String> env, Path log, int minutes, String... args) throws IOException,
            InterruptedException {
        Process p = start(host, env, log, args);
        if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(List.of(args) + " did not exit within " + minutes + " min: " + read(log));
        }
        return new Run(p.exitValue(), read(log));
    }

    static String read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "";
        }
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
