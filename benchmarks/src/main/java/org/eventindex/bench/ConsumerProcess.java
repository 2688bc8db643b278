package org.eventindex.bench;

import org.eventindex.consumer.ConsumerMain;
import org.eventindex.consumer.ConsumerMetrics;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.deploy.EmbeddedStack;
import org.eventindex.deploy.chaos.ChaosWait;
import org.eventindex.deploy.chaos.ChildProcess;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.MetricsText;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
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
 * {@code bin/bench-seed}'s consumer as its own process, as an operator runs it: {@code java <the options of the
 * distribution's jvm/consumer.options> -cp <this JVM's classpath> ConsumerMain run --config FILE}, configured by
 * {@link EmbeddedStack#consumerProcessConfig} (secrets as files), its output in one log file. {@link #sample()} reads
 * what the process itself uses: its {@code /metrics} (JVM heap and GC, run memory), its peak resident set
 * ({@code VmHWM} of /proc/PID/status) and its CPU time (utime + stime of /proc/PID/stat). {@link #close()} stops it;
 * a shutdown hook does so on Ctrl-C.
 */
final class ConsumerProcess implements AutoCloseable {
    /** System property naming the consumer's JVM options file; bin/bench-seed sets it to the distribution's. */
    static final String OPTIONS_PROPERTY = "ei.consumer.options";
    static final String OPTIONS_FILE = "distribution/src/dist/jvm/consumer.options";
    static final String NAME = "consumer-1";
    private static final Pattern HEAP_SIZE = Pattern.compile("\\d+[kKmMgG]?");

    private final ChildProcess child;
    private final int port;
    private final JvmOptions jvm;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread shutdownHook;

    /**
     * The consumer JVM's options.
     *
     * @param options every option, in order
     * @param xmx     the value of the (last) {@code -Xmx}, e.g. {@code 1g}
     * @param source  where the heap options came from: the options file's path or {@code --consumer-heap}
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
     * The options file: {@value #OPTIONS_PROPERTY} when set, else {@value #OPTIONS_FILE} below the working folder or
     * its parent (a module's folder, as under Maven).
     */
    static Path optionsFile() {
        String set = System.getProperty(OPTIONS_PROPERTY);
        if (set != null && !set.isBlank()) {
            return Paths.get(set);
        }
        Path here = Paths.get(OPTIONS_FILE);
        Path parent = Paths.get("..").resolve(OPTIONS_FILE);
        return Files.isRegularFile(here) || !Files.isRegularFile(parent) ? here : parent.normalize();
    }

    /**
     * The JVM options of {@code file} (read now, so that a change there changes the benchmark); with {@code heap}
     * (e.g. {@code 1g}) its {@code -Xms}/{@code -Xmx} lines are replaced by {@code -Xms<heap> -Xmx<heap>} (the only
     * options when there is no such file).
     *
     * @throws IOException              the file cannot be read
     * @throws IllegalArgumentException a bad {@code heap}, or no {@code -Xmx} line in the file and no {@code heap}
     */
    static JvmOptions jvmOptions(Path file, String heap) throws IOException {
        if (heap != null && !Files.exists(file)) {
            return jvmOptions(List.of(), shown(file), heap);
        }
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IOException("cannot read the consumer's JVM options file " + file + " (" + e + ")", e);
        }
        return jvmOptions(optionLines(text), shown(file), heap);
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

    static JvmOptions jvmOptions(List<String> lines, String file, String heap) {
        if (heap != null) {
            if (!HEAP_SIZE.matcher(heap).matches()) {
                throw new IllegalArgumentException("--consumer-heap must be a JVM heap size such as 1g or 768m, got '"
                        + heap + "'");
            }
            List<String> options = new ArrayList<>(lines.stream()
                    .filter(o -> !o.startsWith("-Xmx") && !o.startsWith("-Xms")).toList());
            options.add(0, "-Xmx" + heap);
            options.add(0, "-Xms" + heap);
            return new JvmOptions(options, heap, "--consumer-heap");
        }
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
        return new JvmOptions(lines, xmx, file);
    }

    /**
     * Starts the consumer process on {@code stack} and waits for its {@code /ready}; its configuration file and log
     * ({@value #NAME}.log) go to {@code dir}. On failure (not ready within {@code timeout}, exited) it is stopped.
     */
    static ConsumerProcess start(EmbeddedStack stack, Path dir, JvmOptions jvm, Duration timeout,
                                 Consumer<String> progress) throws IOException {
        int port = Ports.free();
        Path config = DaemonProcesses.writeConfig(dir.resolve(NAME + ".properties"),
                stack.consumerProcessConfig(0, port));
        List<String> cmd = ChildJvm.main(ConsumerMain.class).options(jvm.options())
                // the GC log gives what the heap holds after each collection: "in use" from /metrics includes garbage
                .options("-Xlog:gc:file=" + dir.resolve(NAME + "-gc.log").toAbsolutePath() + ":uptime",
                        "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp-" + NAME)))
                .args("run", "--config", config.toString()).command();
        ChildProcess child = new ChildProcess(NAME, cmd, Map.of(), dir.resolve(NAME + ".log"));
        ConsumerProcess c = new ConsumerProcess(child, port, jvm);
        Runtime.getRuntime().addShutdownHook(c.shutdownHook);
        try {
            child.start();
            progress.accept("consumer process pid " + child.pid() + ", -Xmx" + jvm.xmx() + " from " + jvm.source()
                    + ", log " + child.log());
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
