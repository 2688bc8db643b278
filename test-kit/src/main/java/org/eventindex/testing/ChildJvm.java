package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command line of a child JVM, started with the launcher of the running JVM ({@code java.home}): a main class on
 * this JVM's class path (or a given one), or a jar such as the producer's. The one way the tests, the embedded stack
 * and the chaos harness start the project's programs as processes, as a service unit or a grid job wrapper would.
 * <pre>
 * ChildJvm.main(SupervisorMain.class).heap("256m").quickStart().args("run", "--config", file).start(log);
 * </pre>
 * {@link #on(Host)} runs it on a host of a {@link org.eventindex.testing.hosts.HostNetwork} ({@code ip netns exec}).
 */
public final class ChildJvm {
    private final List<String> options = new ArrayList<>();
    private final List<String> launch;
    private final List<String> args = new ArrayList<>();
    private Host host = Host.local();

    private ChildJvm(List<String> launch) {
        this.launch = launch;
    }

    /** The {@code java} launcher of the running JVM. */
    public static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** {@code main} on the running JVM's class path. */
    public static ChildJvm main(Class<?> main) {
        return main(main.getName(), System.getProperty("java.class.path"));
    }

    /** The main class named {@code main} on {@code classPath}. */
    public static ChildJvm main(String main, String classPath) {
        return new ChildJvm(List.of("-cp", requireNonNull(classPath, "classPath is null"),
                requireNonNull(main, "main is null")));
    }

    /** {@code java -jar jar}. */
    public static ChildJvm jar(Path jar) {
        return new ChildJvm(List.of("-jar", requireNonNull(jar, "jar is null").toString()));
    }

    /** {@code -Xmx<size>}, e.g. {@code 256m}. */
    public ChildJvm heap(String size) {
        return options("-Xmx" + requireNonNull(size, "size is null"));
    }

    /**
     * The options of a small JVM that starts fast on a 2-core machine, as the children of tests and of the harness
     * are: C1 only ({@code -XX:TieredStopAtLevel=1}) and the serial collector.
     */
    public ChildJvm quickStart() {
        return options("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    }

    /**
     * What {@code bin/eventindex} adds for a daemon: no perf-data file, and exit at the first OutOfMemoryError (status
     * 3) instead of running on half-broken.
     */
    public ChildJvm daemon() {
        return options("-XX:-UsePerfData", "-XX:+ExitOnOutOfMemoryError");
    }

    /** Runs the JVM on {@code host} (by default {@link Host#local()}, this machine's own namespace). */
    public ChildJvm on(Host host) {
        this.host = requireNonNull(host, "host is null");
        return this;
    }

    /** JVM options, in order, before the main class or jar. */
    public ChildJvm options(String... jvmOptions) {
        return options(List.of(jvmOptions));
    }

    /** JVM options, in order, before the main class or jar. */
    public ChildJvm options(Collection<String> jvmOptions) {
        options.addAll(jvmOptions);
        return this;
    }

    /** The program's arguments, after the main class or jar. */
    public ChildJvm args(String... arguments) {
        return args(List.of(arguments));
    }

    /** The program's arguments, after the main class or jar. */
    public ChildJvm args(Collection<String> arguments) {
        args.addAll(arguments);
        return this;
    }

    /** The whole command line ({@code ip netns exec NS} first when the JVM runs on a host). */
    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(java().toString());
        command.addAll(options);
        command.addAll(launch);
        command.addAll(args);
        return host.command(command);
    }

    /** A process builder of {@link #command()}, to set the environment and the redirections. */
    public ProcessBuilder builder() {
        return new ProcessBuilder(command());
    }

    /** Starts the JVM with its stdout and stderr together in {@code log} (replaced). */
    public Process start(Path log) throws IOException {
        return builder().redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * Waits up to {@code timeout} for {@code process} to exit; if it does not, stops it: SIGTERM first (a driver's
     * shutdown hook stops what it started), SIGKILL after a minute. Whether it exited within {@code timeout}.
     */
    public static boolean awaitExitOrStop(Process process, Duration timeout) throws InterruptedException {
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        return false;
    }

    @Override
    public String toString() {
        return String.join(" ", command());
    }
}
