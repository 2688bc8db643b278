package org.eventindex.bench;

import org.eventindex.consumer.ConsumerMetrics;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.deploy.EmbeddedStack;
import org.eventindex.deploy.chaos.ChaosWait;
import org.eventindex.deploy.chaos.ChildProcess;
import org.eventindex.testing.MetricsText;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * {@code bin/bench-seed}'s consumer as an operator runs it: the distribution's tarball
 * ({@code distribution/target/eventindex-<version>.tar.gz}) unpacked into the work folder, and its own launcher,
 * {@code <home>/bin/eventindex consumer run --config FILE}: the tarball's {@code lib/} as the class path, its
 * {@code jvm/consumer.options}, its {@code conf/logback.xml}. The benchmark adds only what the launcher takes from
 * the environment ({@code EVENTINDEX_JAVA_OPTS}: the GC log it reads, a temp folder, and {@code --consumer-heap}).
 * Configured by {@link EmbeddedStack#consumerProcessConfig} (secrets as files), its output in one log file.
 * {@link #sample()} reads what the process itself uses: its {@code /metrics} (JVM heap and GC, run memory), its peak
 * resident set ({@code VmHWM} of /proc/PID/status) and its CPU time (utime + stime of /proc/PID/stat; the launcher
 * execs the JVM, so the process is the JVM). {@link #close()} stops it; a shutdown hook does so on Ctrl-C.
 */
final class ConsumerProcess implements AutoCloseable {
    /** System property naming the distribution's tarball; bin/bench-seed sets it to the last build's. */
    static final String TARBALL_PROPERTY = "ei.distribution.tarball";
    static final String TARBALL_DIR = "distribution/target";
    static final String NAME = "consumer-1";
    private static final Pattern HEAP_SIZE = Pattern.compile("\\d+[kKmMgG]?");

    private final ChildProcess child;
    private final int port;
    private final JvmOptions jvm;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread shutdownHook;

    /**
     * The consumer JVM's options, as its launcher gives them to the JVM.
     *
     * @param options every option, in order
     * @param xmx     the value of the (last) {@code -Xmx}, e.g. {@code 1g}
     * @param source  where the heap option came from: the options file's path or {@code --consumer-heap}
     */
    record JvmOptions(List<String> options, String xmx, String source) {
        JvmOptions {
            options = List.copyOf(options);
            Objects.requireNonNull(xmx, "xmx is null");
            Objects.requireNonNull(source, "source is null");
        }
    }

    /** What the process uses at one instant; -1 where a source did not answer. */
    record Sample(Instant at, long heapUsed, long heapMax, long gcCount, double gcSeconds, long cpuNanos,
                  long rssPeak, long runMemoryUsed, long runMemoryLimit) {
    }

    private ConsumerProcess(ChildProcess child, int port, JvmOptions jvm) {
        this.child = child;
        this.port = port;
        this.jvm = jvm;
        this.shutdownHook = new Thread(child::close, "bench-seed-consumer-stop");
    }

    /**
     * The distribution's tarball: {@value #TARBALL_PROPERTY} when set, else the one
     * {@code eventindex-*.tar.gz} of {@value #TARBALL_DIR} below the working folder or its parent (a module's
     * folder, as under Maven).
     *
     * @throws IOException naming the folder and the build command when there is none, or several
     */
    static Path tarball() throws IOException {
        String set = System.getProperty(TARBALL_PROPERTY);
        if (set != null && !set.isBlank()) {
            return Paths.get(set);
        }
        Path dir = Paths.get(TARBALL_DIR);
        if (!Files.isDirectory(dir)) {
            dir = Paths.get("..").resolve(TARBALL_DIR).normalize();
        }
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (var s = Files.newDirectoryStream(dir, "eventindex-*.tar.gz")) {
                s.forEach(found::add);
            }
        }
        if (found.size() != 1) {
            throw new IOException((found.isEmpty() ? "no distribution tarball eventindex-*.tar.gz" : "several"
                    + " distribution tarballs " + found) + " in " + dir.toAbsolutePath() + ": build it with mvn"
                    + " -DskipTests package, or name it with -D" + TARBALL_PROPERTY + "=FILE");
        }
        return found.get(0);
    }

    /**
     * Unpacks {@code tarball} into {@code dir} ({@code tar xzf}), as an operator installs it.
     *
     * @return the distribution's top folder ({@code eventindex-<version>}, holding {@code bin/eventindex})
     */
    static Path unpack(Path tarball, Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Process tar = new ProcessBuilder("tar", "xzf", tarball.toAbsolutePath().toString(), "-C",
                dir.toAbsolutePath().toString()).redirectErrorStream(true).start();
        String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (tar.waitFor() != 0) {
            throw new IOException("tar xzf " + tarball + " failed: " + output.strip());
        }
        try (var s = Files.newDirectoryStream(dir, "eventindex-*")) {
            for (Path home : s) {
                if (Files.isExecutable(home.resolve("bin/eventindex"))) {
                    return home;
                }
            }
        }
        throw new IOException(tarball + " unpacked into " + dir + " holds no eventindex-*/bin/eventindex");
    }

    /**
     * What the benchmark adds to the launcher's environment: {@code EVENTINDEX_JAVA_OPTS} with the GC log it reads
     * ({@value #NAME}-gc.log in {@code dir}), a temp folder, {@code -Xms/-Xmx} of {@code heap} when not null, then
     * {@code extra} (the launcher puts these after the files' options, so they win); {@code JAVA_HOME} of this JVM.
     *
     * @param extra JVM options of {@code --consumer-java-option}, one word each (the variable is split at spaces)
     */
    static Map<String, String> environment(Path dir, String heap, List<String> extra) throws IOException {
        List<String> opts = new ArrayList<>();
        // the GC log gives what the heap holds after each collection: "in use" from /metrics includes garbage
        opts.add("-Xlog:gc:file=" + dir.resolve(NAME + "-gc.log").toAbsolutePath() + ":uptime");
        opts.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp-" + NAME)).toAbsolutePath());
        if (heap != null) {
            opts.add("-Xms" + heap);
            opts.add("-Xmx" + heap);
        }
        for (String o : extra) {
            if (!o.startsWith("-") || o.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("--consumer-java-option must be one JVM option starting with '-'"
                        + " and without spaces, got '" + o + "'");
            }
            opts.add(o);
        }
        return Map.of("EVENTINDEX_JAVA_OPTS", String.join(" ", opts), "JAVA_HOME", System.getProperty("java.home"));
    }

    /**
     * The options the launcher of {@code home} gives the consumer's JVM ({@code bin/eventindex --jvm-options
     * consumer run} with {@code env}).
     *
     * @throws IllegalArgumentException a bad {@code heap}, or no {@code -Xmx} at all
     */
    static JvmOptions jvmOptions(Path home, Map<String, String> env, String heap)
            throws IOException, InterruptedException {
        checkHeap(heap);
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/eventindex").toString(), "--jvm-options", "consumer",
                "run").redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(home.resolve("bin/eventindex") + " --jvm-options consumer run failed: "
                    + text.strip());
        }
        return jvmOptions(optionLines(text), shown(home.resolve("jvm/consumer.options")), heap);
    }

    /** {@code file} relative to the working folder when below it (the repository's root under bin/bench-seed). */
    static String shown(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        Path cwd = Paths.get("").toAbsolutePath();
        return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
    }

    /** The options of a {@code jvm/*.options} text as bin/eventindex reads it: trimmed, no blanks or comments. */
    static List<String> optionLines(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\r?\n")) {
            String l = line.strip();
            if (!l.isEmpty() && !l.startsWith("#")) {
                out.add(l);
            }
        }
        return out;
    }

    private static void checkHeap(String heap) {
        if (heap != null && !HEAP_SIZE.matcher(heap).matches()) {
            throw new IllegalArgumentException("--consumer-heap must be a JVM heap size such as 1g or 768m, got '"
                    + heap + "'");
        }
    }

    /**
     * The options in {@code lines} (the launcher's, in order), their last {@code -Xmx}, and where it came from:
     * {@code --consumer-heap} when {@code heap} is set (the benchmark added it last), else {@code file}.
     */
    static JvmOptions jvmOptions(List<String> lines, String file, String heap) {
        checkHeap(heap);
        String xmx = null;
        for (String o : lines) {
            if (o.startsWith("-Xmx")) {
                xmx = o.substring("-Xmx".length());
            }
        }
        if (xmx == null || xmx.isEmpty()) {
            throw new IllegalArgumentException("no -Xmx line in the consumer's JVM options file " + file
                    + "; give the heap with --consumer-heap SIZE");
        }
        return new JvmOptions(lines, xmx, heap != null ? "--consumer-heap" : file);
    }

    /**
     * Starts the consumer of the unpacked distribution {@code home} on {@code stack}, with the keys of {@code set}
     * added to (or replacing) the stack's configuration, and waits for its {@code /ready}; its configuration file and
     * log ({@value #NAME}.log) go to {@code dir}. On failure (not ready
     * within {@code timeout}, exited) it is stopped.
     */
    static ConsumerProcess start(EmbeddedStack stack, Path home, Path dir, String heap, List<String> javaOptions,
                                 Map<String, String> set, Duration timeout, Consumer<String> progress)
            throws IOException, InterruptedException {
        int port = Ports.free();
        Map<String, String> properties = new java.util.TreeMap<>(stack.consumerProcessConfig(0, port));
        properties.putAll(set);
        Path config = DaemonProcesses.writeConfig(dir.resolve(NAME + ".properties"), properties);
        Map<String, String> env = environment(dir, heap, javaOptions);
        JvmOptions jvm = jvmOptions(home, env, heap);
        List<String> cmd = List.of(home.resolve("bin/eventindex").toString(), "consumer", "run", "--config",
                config.toAbsolutePath().toString());
        ChildProcess child = new ChildProcess(NAME, cmd, env, dir.resolve(NAME + ".log"));
        ConsumerProcess c = new ConsumerProcess(child, port, jvm);
        Runtime.getRuntime().addShutdownHook(c.shutdownHook);
        try {
            child.start();
            progress.accept("consumer process pid " + child.pid() + " (" + home.resolve("bin/eventindex")
                    + " consumer run), -Xmx" + jvm.xmx() + " from " + jvm.source() + ", log " + child.log());
            ChaosWait.until(NAME + " ready (log " + child.log() + ")", timeout, () -> {
                c.checkAlive();
                return c.get("/ready").map(r -> r.statusCode() == 200).orElse(false);
            });
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** @throws IllegalStateException naming the log when the process has exited */
    void checkAlive() {
        Optional<Integer> exit = child.exitCode();
        if (exit.isPresent()) {
            throw new IllegalStateException(NAME + " exited with status " + exit.get() + "; see " + child.log());
        }
    }

    JvmOptions jvm() {
        return jvm;
    }

    Path log() {
        return child.log();
    }

    private Optional<HttpResponse<String>> get(String path) {
        return DaemonProcesses.get(http, port, path);
    }

    /** What the process uses now; empty when it does not answer on {@code /metrics}. */
    Optional<Sample> sample() {
        Optional<String> metrics = get("/metrics").filter(r -> r.statusCode() == 200).map(HttpResponse::body);
        if (metrics.isEmpty()) {
            return Optional.empty();
        }
        String m = metrics.get();
        long rss = -1;
        try {
            rss = statusBytes(Files.readString(Paths.get("/proc", Long.toString(child.pid()), "status")), "VmHWM:");
        } catch (IOException | RuntimeException gone) {
            // exited between the scrape and the read, or no /proc: the peak stays what was seen
        }
        // ProcessHandle's total CPU duration is utime + stime of /proc/PID/stat on Linux
        long cpu = ProcessHandle.of(child.pid()).flatMap(h -> h.info().totalCpuDuration())
                .map(Duration::toNanos).orElse(-1L);
        String heap = "area=\"heap\"";
        return Optional.of(new Sample(Instant.now(), (long) MetricsText.value(m, "jvm_memory_used_bytes", heap),
                (long) MetricsText.value(m, "jvm_memory_max_bytes", heap),
                (long) MetricsText.value(m, "jvm_gc_collection_seconds_count", ""),
                MetricsText.value(m, "jvm_gc_collection_seconds_sum", ""), cpu, rss,
                (long) MetricsText.value(m, ConsumerMetrics.RUN_MEMORY_USED, ""),
                (long) MetricsText.value(m, ConsumerMetrics.RUN_MEMORY_LIMIT, "")));
    }

    /** A {@code kB} line of a /proc/PID/status text, in bytes ({@code key} e.g. {@code VmHWM:}); -1 when absent. */
    static long statusBytes(String status, String key) {
        for (String line : status.split("\n")) {
            if (line.startsWith(key)) {
                return Long.parseLong(line.substring(key.length()).strip().split("\\s+")[0]) * 1024;
            }
        }
        return -1;
    }

    /** The process's GC log ({@code -Xlog:gc}, one line per collection). */
    Path gcLog() {
        return child.log().resolveSibling(NAME + "-gc.log");
    }

    /**
     * What a {@code -Xlog:gc} text says about the heap: the most it held right after a pause (what survived it: the
     * live objects, and garbage in regions the collection did not visit), the number of pauses (young, mixed, full,
     * and G1's remark and cleanup) and of full collections.
     *
     * @param peakAfter bytes in use after a pause, the highest; -1 when the text has no pause
     * @param pauses    pauses logged with a heap size ("Pause ... A->B(C)")
     * @param fullGcs   collections of the whole heap ("Pause Full")
     */
    record GcFigures(long peakAfter, long pauses, long fullGcs) {
    }

    /** A pause line's heap after it: group 1 the number, group 2 its unit. */
    private static final Pattern GC_PAUSE = Pattern.compile("Pause .*? \\d+[KMG]->(\\d+)([KMG])\\(\\d+[KMG]\\)");

    static GcFigures gcFigures(String log) {
        long peak = -1;
        long count = 0;
        long full = 0;
        for (String line : log.split("\n")) {
            var m = GC_PAUSE.matcher(line);
            if (!m.find()) {
                continue;
            }
            count++;
            if (line.contains("Pause Full")) {
                full++;
            }
            peak = Math.max(peak, Long.parseLong(m.group(1)) * unit(m.group(2)));
        }
        return new GcFigures(peak, count, full);
    }

    private static long unit(String u) {
        return switch (u) {
            case "K" -> 1L << 10;
            case "M" -> 1L << 20;
            default -> 1L << 30;
        };
    }

    /** {@link #gcFigures} of this process's log so far; -1s when it cannot be read. */
    GcFigures gcFigures() {
        try {
            return gcFigures(Files.readString(gcLog()));
        } catch (IOException | RuntimeException e) {
            return new GcFigures(-1, -1, -1);
        }
    }

    /** Stops the process (SIGTERM, SIGKILL after a grace period); idempotent. */
    @Override
    public void close() {
        child.close();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // close() runs while the JVM exits: the hook does the same
        }
    }
}
