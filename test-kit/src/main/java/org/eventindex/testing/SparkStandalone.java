package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Spark standalone cluster on this machine: Spark's own {@code Master} and {@code Worker} (from spark-core,
 * on the running JVM's class path) as processes of their own, each worker with its cores and memory, all on
 * 127.0.0.1 with free ports. Executors are started by the workers as further processes, with the class path the
 * application gives in {@code spark.executor.extraClassPath} ({@link #executorClassPath()}).
 * <p>
 * A worker looks for {@code $SPARK_HOME/jars} and the Scala version of a Spark distribution; an empty
 * {@code jars} folder and {@code SPARK_SCALA_VERSION} stand in for them (the class path is the test's).
 * <p>
 * {@link #launch(Path, Host, List, int, String)} puts the master and each worker on a host of a
 * {@link org.eventindex.testing.hosts.HostNetwork}, each bound to and advertising its host's address; the methods that
 * ask the master ({@link #aliveWorkers()}, {@link #status()}, {@link #awaitWorkers}) then work only from a process on
 * a host of that network (a driver on a control host).
 */
public final class SparkStandalone implements AutoCloseable {
    private static final Pattern ALIVE_WORKERS = Pattern.compile("\"aliveworkers\"\\s*:\\s*(\\d+)");

    private final String address;
    private final int port;
    private final int webPort;
    private final List<Process> processes;
    private final Path dir;

    private SparkStandalone(String address, int port, int webPort, List<Process> processes, Path dir) {
        this.address = address;
        this.port = port;
        this.webPort = webPort;
        this.processes = processes;
        this.dir = dir;
    }

    /**
     * Starts a master and {@code workers} workers of {@code cores} cores and {@code memory} (e.g. {@code 640m}) each,
     * and waits until every worker registered.
     */
    public static SparkStandalone start(Path dir, int workers, int cores, String memory) {
        SparkStandalone cluster = launch(dir, workers, cores, memory);
        try {
            cluster.awaitWorkers(workers);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /**
     * Starts the master and workers as {@link #start} does, without waiting for them: a test starts its other
     * services meanwhile, then calls {@link #awaitWorkers}.
     */
    public static SparkStandalone launch(Path dir, int workers, int cores, String memory) {
        return launch(dir, Host.local(), java.util.Collections.nCopies(workers, Host.local()), cores, memory);
    }

    /**
     * Starts the master on {@code master} and a worker on each of {@code workers} (a host may take several), each
     * bound to its host's address ({@code --host}, {@code SPARK_LOCAL_IP}), without waiting for them. Free ports are
     * taken on this machine's namespace: a host's namespace has no process but the test's, so they are free there too.
     */
    public static SparkStandalone launch(Path dir, Host master, List<Host> workers, int cores, String memory) {
        requireNonNull(dir, "dir is null");
        requireNonNull(master, "master is null");
        List<Process> processes = new ArrayList<>();
        try {
            Path home = Files.createDirectories(dir.resolve("spark-home"));
            Files.createDirectories(home.resolve("jars"));
            int port = Ports.free();
            int webPort = Ports.free();
            processes.add(launch("org.apache.spark.deploy.master.Master", master, home, dir.resolve("master.log"),
                    List.of("--host", master.address(), "--port", Integer.toString(port), "--webui-port",
                            Integer.toString(webPort))));
            for (int i = 0; i < workers.size(); i++) {
                Host host = workers.get(i);
                Path work = Files.createDirectories(dir.resolve("worker-" + i));
                processes.add(launch("org.apache.spark.deploy.worker.Worker", host, home,
                        dir.resolve("worker-" + i + ".log"), List.of("--host", host.address(), "--webui-port",
                                Integer.toString(Ports.free()), "--cores", Integer.toString(cores), "--memory", memory,
                                "--work-dir", work.toString(), "spark://" + master.endpoint(port))));
            }
            return new SparkStandalone(master.address(), port, webPort, processes, dir);
        } catch (IOException e) {
            processes.forEach(Process::destroyForcibly);
            throw new UncheckedIOException("cannot start a Spark standalone cluster in " + dir, e);
        }
    }

    /** Waits until {@code workers} workers registered with the master, failing early if a daemon exits. */
    public void awaitWorkers(int workers) {
        Await.until(workers + " Spark workers registered with the master (logs in " + dir + ")",
                Duration.ofSeconds(90), () -> {
                    for (Process p : processes) {
                        if (!p.isAlive()) {
                            throw new AssertionError("a Spark daemon exited with " + p.exitValue() + "; logs in "
                                    + dir);
                        }
                    }
                    return aliveWorkers() >= workers;
                });
    }

    /**
     * The Spark settings of an application on this cluster, for {@code spark-submit --conf} or a SparkConf: the
     * executors on the test's class path as small quick-starting JVMs of {@code executorMemory}, at most
     * {@code executors} of one core, the driver on 127.0.0.1 without its web UI.
     */
    public static Map<String, String> applicationSettings(int executors, String executorMemory) {
        return applicationSettings(executors, executorMemory, Host.local());
    }

    /** {@link #applicationSettings(int, String)} of a driver on {@code driver}: bound to and advertising its address. */
    public static Map<String, String> applicationSettings(int executors, String executorMemory, Host driver) {
        Map<String, String> settings = new java.util.LinkedHashMap<>();
        settings.put("spark.executor.extraClassPath", executorClassPath());
        settings.put("spark.executor.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        settings.put("spark.executor.memory", executorMemory);
        settings.put("spark.executor.cores", "1");
        settings.put("spark.cores.max", Integer.toString(executors));
        settings.put("spark.driver.host", driver.address());
        settings.put("spark.driver.bindAddress", driver.address());
        settings.put("spark.ui.enabled", "false");
        return settings;
    }

    private static Process launch(String main, Host host, Path home, Path log, List<String> args)
            throws IOException {
        ProcessBuilder pb = ChildJvm.main(main, System.getProperty("java.class.path")).heap("192m").quickStart()
                .args(args).on(host).builder();
        Map<String, String> env = pb.environment();
        env.put("SPARK_HOME", home.toString());
        env.put("SPARK_SCALA_VERSION", "2.12");
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("SPARK_LOCAL_IP", host.address());
        return pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** {@code spark://ADDRESS:PORT}, the master's host's address (127.0.0.1 on this machine's namespace). */
    public String masterUrl() {
        return "spark://" + address + ":" + port;
    }

    /** The class path executors need: the running JVM's (the workers start them on this machine). */
    public static String executorClassPath() {
        return System.getProperty("java.class.path");
    }

    /** Workers the master sees ALIVE (its JSON status page), -1 when it does not answer. */
    public int aliveWorkers() {
        Matcher m = ALIVE_WORKERS.matcher(HttpGets.body("http://" + address + ":" + webPort + "/json/"));
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The master's JSON status page (applications, workers, their cores in use). */
    public String status() {
        return HttpGets.body("http://" + address + ":" + webPort + "/json/");
    }

    /**
     * Workers that have started an executor so far: the executor's folder under the worker's work folder holds its
     * {@code stderr}.
     */
    public long workersWithExecutors() {
        long used = 0;
        for (int i = 0; Files.isDirectory(dir.resolve("worker-" + i)); i++) {
            try (Stream<Path> files = Files.walk(dir.resolve("worker-" + i))) {
                used += files.anyMatch(p -> p.getFileName().toString().equals("stderr")) ? 1 : 0;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list worker " + i + "'s folder in " + dir, e);
            }
        }
        return used;
    }

    /** Where the daemons' logs and the executors' work folders are. */
    public Path dir() {
        return dir;
    }

    @Override
    public void close() {
        // workers first: they stop their executors
        for (int i = processes.size() - 1; i >= 0; i--) {
            Process p = processes.get(i);
            p.destroy();
            try {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
