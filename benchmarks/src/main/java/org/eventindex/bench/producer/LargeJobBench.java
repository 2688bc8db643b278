package org.eventindex.bench.producer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.EventSize;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * {@code bin/bench-producer --large-job}: the seed's largest grid job (30 million events, its biggest object 670 MB,
 * {@link EventSize#LARGE_JOB}) through the producer jar with a 64 MB heap, each step once and in this order, with the
 * baselines of the same run: the JVM's own inflate of the file ({@link InflateBaseline}, its own JVM with the same
 * heap), the producer's dry run (validation and digests), the same under JFR for a profile, the producer's full run
 * (validated, digested, stored, announced), the raw multipart PUT of the same bytes from this JVM (the producer's
 * part size, parts in order) and a server-side copy of the object it stored. Prints a Markdown table and where the
 * profiled dry run's CPU samples fall.
 */
final class LargeJobBench {
    static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    static final String HEAP = "64m";
    private static final int FILES = 30;
    private static final int TOP_FRAMES = 12;
    private static final String JAVA_SAMPLE = "jdk.ExecutionSample";
    private static final String NATIVE_SAMPLE = "jdk.NativeMethodSample";
    /** The producer's part size ({@code UploadSettings.DEFAULT}; the producer jar is not on this class path). */
    private static final long PART_SIZE = 8L << 20;

    private LargeJobBench() {
    }

    /** The SPB file of {@code events} events in {@code dir}, generated unless an earlier run left it there. */
    static Path spb(Path dir, int events) throws IOException {
        Path done = dir.resolve("large-job-" + events + ".path");
        if (Files.isRegularFile(done)) {
            Path spb = Path.of(Files.readString(done).trim());
            if (Files.isRegularFile(spb)) {
                return spb;
            }
        }
        long t0 = System.nanoTime();
        GeneratorSpec spec = new GeneratorSpec(DATASET, FILES, events / FILES, FILES, 0, 0, 0, false, 30L,
                EventSize.LARGE_JOB);
        GeneratedDataset ds = new DatasetGenerator(spec).generate(dir.resolve("large-job-" + events));
        Path spb = ds.jobs().get(0).spbFile();
        Files.writeString(done, spb.toString());
        System.err.printf(Locale.ROOT, "generated %s in %.0f s%n", spb, (System.nanoTime() - t0) / 1e9);
        return spb;
    }

    static void run(Path jar, Path dir, int events, String ak, String sk) throws Exception {
        Path spb = spb(dir, events);
        long size = Files.size(spb);
        double load = loadAverage();
        // A fresh broker and store each run (the SPB file is kept): the queue holds this run's message only.
        ProducerBench.deleteTree(dir.resolve("broker"));
        ProducerBench.deleteTree(dir.resolve("s3"));
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
             EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), ak, sk);
             S3Client client = ProducerBench.client(s3, ak, sk)) {
            s3.createBucket("eventindex");
            Path jfr = dir.resolve("dry-run.jfr");
            Files.deleteIfExists(jfr);
            List<String> inflate = ChildJvm.main(InflateBaseline.class).heap(HEAP).args(spb.toString()).command();
            // the dry run measured against the target runs without a profiler; a second one under JFR gives the
            // profile (its sampling and allocation events cost the run about a tenth)
            List<String> dryRun = ChildJvm.jar(jar).heap(HEAP).options(gcLog(dir, "dry-run"))
                    .args(spb.toString(), "--dry-run").command();
            List<String> profiled = ChildJvm.jar(jar).heap(HEAP)
                    .options("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile")
                    .args(spb.toString(), "--dry-run").command();
            List<String> produce = ChildJvm.jar(jar).heap(HEAP).options(gcLog(dir, "full-run"))
                    .args(spb.toString(), "--brokers",
                    broker.stompEndpoints(), "--s3-endpoint", s3.endpoint().toString(), "--bucket", "eventindex")
                    .command();
            Path inflateLog = dir.resolve("inflate.log");
            double inflateMs = ProducerBench.time(dir, cpuTimed(inflate, dir, "inflate"), inflateLog);
            long inflated = Long.parseLong(Files.readString(inflateLog).trim());
            double dryMs = ProducerBench.time(dir, cpuTimed(dryRun, dir, "dry-run"), dir.resolve("dry-run.log"));
            double profiledMs = ProducerBench.time(dir, cpuTimed(profiled, dir, "dry-run-jfr"),
                    dir.resolve("dry-run-jfr.log"));
            double fullMs = ProducerBench.time(dir, cpuTimed(produce, dir, "full-run"), dir.resolve("full-run.log"));
            double putMs = multipartPut(client, spb, PART_SIZE);
            double copyMs = serverSideCopy(client);
            double inflateCpu = cpuSeconds(dir, "inflate");
            double loadAfter = loadAverage();

            System.out.printf(Locale.ROOT, "Producer benchmark, the largest grid job: %s, Java %s, %d cores;"
                            + " each row run once; load average %.1f before, %.1f after%n%n", System.getProperty("os.name"),
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), load, loadAfter);
            System.out.printf(Locale.ROOT, "- SPB: %,d events, %,d bytes (%.1f bytes/event), inflates to %,d bytes"
                    + " (%.1f times)%n- producer heap: -Xmx%s; messages acknowledged: %d%n%n", events, size,
                    (double) size / events, inflated, (double) inflated / size, HEAP,
                    broker.queueSize("/queue/atlas.eventindex.supervisor"));
            System.out.println("| measurement | ms | ratio to the inflate | CPU s (user + sys, all threads) | CPU"
                    + " ratio to the inflate | target |");
            System.out.println("|---|---:|---:|---:|---:|---|");
            row("JVM inflate of the file, own JVM (baseline)", inflateMs, inflateMs, inflateCpu, inflateCpu, "");
            row("producer `--dry-run`: validation + digests", dryMs, inflateMs,
                    cpuSeconds(dir, "dry-run"), inflateCpu, "<= 1.2x the inflate");
            row("the same dry run under JFR (the profile below)", profiledMs, inflateMs,
                    cpuSeconds(dir, "dry-run-jfr"), inflateCpu, "");
            row("producer, full run: validated, digested, stored, announced", fullMs, inflateMs,
                    cpuSeconds(dir, "full-run"), inflateCpu, "<= 30,000 ms");
            row("raw multipart PUT of the same bytes, warm client (baseline)", putMs, inflateMs, Double.NaN,
                    inflateCpu, "");
            row("server-side copy of the stored object (CopyObject: uploading to a temporary key first)", copyMs,
                    inflateMs, Double.NaN, inflateCpu, "");
            System.out.printf(Locale.ROOT, "%nfull run - dry run: %.0f ms (the PUT alone: %.0f ms); inflate %.0f MB/s"
                    + " of output%n", fullMs - dryMs, putMs, inflated / 1e3 / inflateMs);
            System.out.printf(Locale.ROOT, "GC pauses: dry run %s; full run %s%n", gcPauses(dir, "dry-run"),
                    gcPauses(dir, "full-run"));
            // the profile's shares applied to the CPU of the dry run without JFR (the recording costs CPU of its own)
            printProfile(jfr, cpuSeconds(dir, "dry-run"), inflateCpu);
        }
    }

    private static void row(String what, double ms, double baseline, double cpu, double cpuBaseline,
                            String target) {
        System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f | %s | %s | %s |%n", what, ms, ms / baseline,
                Double.isNaN(cpu) ? "" : String.format(Locale.ROOT, "%.1f", cpu),
                Double.isNaN(cpu) || Double.isNaN(cpuBaseline) ? "" : String.format(Locale.ROOT, "%.2f",
                        cpu / cpuBaseline), target);
    }

    /**
     * The command under GNU time when installed, its user and system CPU seconds into {@code name.cpu}: on a shared
     * machine the CPU a child used says more than its wall time.
     */
    private static List<String> cpuTimed(List<String> command, Path dir, String name) throws IOException {
        Path time = Path.of("/usr/bin/time");
        Files.deleteIfExists(dir.resolve(name + ".cpu"));
        if (!Files.isExecutable(time)) {
            return command;
        }
        List<String> timed = new ArrayList<>(List.of(time.toString(), "-f", "%U %S", "-o",
                dir.resolve(name + ".cpu").toString()));
        timed.addAll(command);
        return timed;
    }

    private static String gcLog(Path dir, String name) throws IOException {
        Files.deleteIfExists(dir.resolve(name + ".gc.log"));
        return "-Xlog:gc:file=" + dir.resolve(name + ".gc.log");
    }

    /** Count and total of the pauses in a child's {@code -Xlog:gc} file ("... Pause ... 3.456ms"). */
    private static String gcPauses(Path dir, String name) throws IOException {
        Path log = dir.resolve(name + ".gc.log");
        if (!Files.isRegularFile(log)) {
            return "(no log)";
        }
        int pauses = 0;
        double ms = 0;
        for (String line : Files.readAllLines(log)) {
            int end = line.lastIndexOf("ms");
            if (!line.contains(" Pause ") || end < 0) {
                continue;
            }
            int start = line.lastIndexOf(' ', end) + 1;
            try {
                ms += Double.parseDouble(line.substring(start, end));
                pauses++;
            } catch (NumberFormatException e) {
                // a line of another form: not a pause with its time
            }
        }
        return String.format(Locale.ROOT, "%d, %.0f ms", pauses, ms);
    }

    /** User + system CPU seconds of a {@link #cpuTimed} child, or NaN without GNU time. */
    private static double cpuSeconds(Path dir, String name) throws IOException {
        Path file = dir.resolve(name + ".cpu");
        if (!Files.isRegularFile(file)) {
            return Double.NaN;
        }
        String[] f = Files.readString(file).trim().split("\\s+");
        return Double.parseDouble(f[f.length - 2]) + Double.parseDouble(f[f.length - 1]);
    }

    /** The parts in order from one thread, as the producer uploads them. */
    private static double multipartPut(S3Client client, Path spb, long partSize) throws IOException {
        long size = Files.size(spb);
        long t0 = System.nanoTime();
        String id = client.createMultipartUpload(b -> b.bucket("eventindex").key("raw-put")).uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        try (InputStream in = Files.newInputStream(spb)) {
            for (int n = 1; (long) (n - 1) * partSize < size; n++) {
                long len = Math.min(partSize, size - (long) (n - 1) * partSize);
                int number = n;
                String etag = client.uploadPart(b -> b.bucket("eventindex").key("raw-put").uploadId(id)
                        .partNumber(number), RequestBody.fromInputStream(in, len)).eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
            }
        }
        client.completeMultipartUpload(b -> b.bucket("eventindex").key("raw-put").uploadId(id)
                .multipartUpload(m -> m.parts(parts)));
        return (System.nanoTime() - t0) / 1e6;
    }

    /**
     * A server-side copy of the object the raw PUT stored: the price of uploading beside the validation to a temporary
     * key and copying it to its final key with the metadata once the file is known valid (decision 0071).
     */
    private static double serverSideCopy(S3Client client) {
        long t0 = System.nanoTime();
        client.copyObject(b -> b.sourceBucket("eventindex").sourceKey("raw-put").destinationBucket("eventindex")
                .destinationKey("raw-copy").metadataDirective("REPLACE").metadata(Map.of("nevents", "0")));
        return (System.nanoTime() - t0) / 1e6;
    }

    /**
     * Where the dry run's CPU samples fall: by thread, and the top frames (the method running). JFR samples threads in
     * Java code and threads in native code (zlib's inflate) at their own periods (10 and 20 ms in the profile
     * settings), so each sample stands for its event's period: unweighted, a thread in Java code would count twice
     * the CPU of one in native code.
     */
    private static void printProfile(Path jfr, double dryCpu, double inflateCpu) throws IOException {
        Map<String, Double> byThread = new HashMap<>();
        Map<String, Double> byFrame = new HashMap<>();
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Map<String, Double> periodMs = samplingPeriods(jfr, events);
        double total = 0;
        int samples = 0;
        for (RecordedEvent e : events) {
            String type = e.getEventType().getName();
            boolean inNative = type.equals(NATIVE_SAMPLE);
            if (!inNative && !type.equals(JAVA_SAMPLE) || e.getStackTrace() == null
                    || e.getStackTrace().getFrames().isEmpty()) {
                continue;
            }
            double weight = periodMs.getOrDefault(type, 1.0);
            total += weight;
            samples++;
            String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
            byThread.merge(thread.startsWith("digests of") ? "digests of <file>" : thread, weight, Double::sum);
            RecordedFrame top = e.getStackTrace().getFrames().get(0);
            byFrame.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName()
                    + (inNative ? " (native)" : ""), weight, Double::sum);
        }
        System.out.printf(Locale.ROOT, "%nDry run profile (JFR samples, %d in all: threads in Java code every %s ms,"
                + " in native code every %s ms, each sample weighted by its period; zlib's inflate is the native frame"
                + " Inflater.inflateBytesBytes):%n%n", samples, period(periodMs, JAVA_SAMPLE),
                period(periodMs, NATIVE_SAMPLE));
        System.out.println("| thread | sampled ms | share |");
        System.out.println("|---|---:|---:|");
        print(byThread, total, Integer.MAX_VALUE);
        System.out.println();
        System.out.println("| top frame | sampled ms | share |");
        System.out.println("|---|---:|---:|");
        print(byFrame, total, TOP_FRAMES);
        // On a loaded machine the wall times say little; what the dry run would take with two idle cores does not
        // depend on the load: at least its busiest thread's CPU, and at least all its CPU over the two cores.
        double busiest = byThread.values().stream().max(Double::compare).orElse(0.0);
        double busiestCpu = dryCpu * busiest / Math.max(1, total);
        double floor = Math.max(busiestCpu, dryCpu / 2);
        System.out.printf(Locale.ROOT, "%nDry run on two idle cores, at best (the samples' shares of the unprofiled"
                + " dry run's %.1f CPU s): busiest thread %.1f s, all CPU / 2 = %.1f s; floor %.1f s = %.2fx the"
                + " inflate's CPU%n", dryCpu, busiestCpu, dryCpu / 2, floor, floor / inflateCpu);
    }

    /** The recording's active {@code period} of each sampling event, in milliseconds (by event name). */
    static Map<String, Double> samplingPeriods(Path jfr, List<RecordedEvent> events) throws IOException {
        Map<Long, String> names = new HashMap<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            file.readEventTypes().forEach(t -> names.put(t.getId(), t.getName()));
        }
        Map<String, Double> periods = new HashMap<>();
        for (RecordedEvent e : events) {
            if (e.getEventType().getName().equals("jdk.ActiveSetting") && "period".equals(e.getString("name"))) {
                String event = names.get(e.getLong("id"));
                Double ms = millis(e.getString("value"));
                if ((JAVA_SAMPLE.equals(event) || NATIVE_SAMPLE.equals(event)) && ms != null) {
                    periods.put(event, ms);
                }
            }
        }
        return periods;
    }

    /** A JFR period such as {@code 10 ms} or {@code 1 s} in milliseconds; null for another form. */
    static Double millis(String value) {
        String[] parts = value.trim().split("\\s+");
        if (parts.length != 2) {
            return null;
        }
        double scale = switch (parts[1]) {
            case "ns" -> 1e-6;
            case "us" -> 1e-3;
            case "ms" -> 1;
            case "s" -> 1000;
            default -> -1;
        };
        try {
            return scale < 0 ? null : Double.parseDouble(parts[0]) * scale;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String period(Map<String, Double> periodMs, String event) {
        Double ms = periodMs.get(event);
        return ms == null ? "? (unweighted)" : String.format(Locale.ROOT, "%.0f", ms);
    }

    private static void print(Map<String, Double> weights, double total, int limit) {
        weights.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()))
                .limit(limit).forEach(e -> System.out.printf(Locale.ROOT, "| `%s` | %.0f | %.1f%% |%n", e.getKey(),
                        e.getValue(), 100.0 * e.getValue() / Math.max(1, total)));
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
