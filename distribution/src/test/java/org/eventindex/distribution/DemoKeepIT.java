package org.eventindex.distribution;

import org.apache.kudu.client.KuduClient;
import org.eventindex.deploy.StackAccess;
import org.eventindex.testing.HttpGets;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Json;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/demo --keep} as a user runs it, in the background of a script (so started with SIGINT ignored, as a shell
 * starts its background jobs), and used from outside with only what it printed and wrote: the printed producer and
 * register-manifest commands run, as separate processes in a shell that sourced the printed environment file, on a
 * dataset generated here; the dataset reaches Kudu with the expected events; SIGINT then stops the demo cleanly (exit
 * status 0, no failure or stack trace). Here and not in deploy: the printed commands run {@code bin/eventindex}, whose
 * class path ({@code distribution/target/runtime.classpath}) this module writes when it is packaged.
 */
final class DemoKeepIT {
    private static final Duration KEPT_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration STEP_TIMEOUT = Duration.ofMinutes(3);
    private static final String DATASET = "data16_13TeV.00311321.physics_Main.merge.AOD.f758_m1616";
    private static final String STOP_LINE = "[demo] SIGINT: stopping the stack";

    @TempDir
    Path work;

    private final Path root = Path.of(System.getProperty("ei.project.dir", "..")).toAbsolutePath().normalize();
    /** Kept after the run, for a failure to be looked at. */
    private final Path output = Path.of("target", "demo-keep-it.log").toAbsolutePath();
    private Process demo;

    @AfterEach
    void stopDemo() throws InterruptedException {
        if (demo != null && demo.isAlive()) {
            demo.destroy(); // SIGTERM: the demo stops its stack, as on SIGINT
            if (!demo.waitFor(2, TimeUnit.MINUTES)) {
                demo.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void anOutsideProducerAndOperatorUseTheKeptStackThenSigintStopsItCleanly() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "trap '' INT; exec \"$0\" \"$@\"",
                root.resolve("bin/demo").toString(), "--keep", "--datasets", "1", "--parallel", "2",
                "--work", work.resolve("demo").toString())
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("EI_"));
        pb.environment().put("EI_DEMO_NO_BUILD", "1");
        demo = pb.start();
        Await.until("bin/demo --keep printing its endpoints (output in " + output + ")", KEPT_TIMEOUT, () -> {
            if (!demo.isAlive()) {
                throw new AssertionError("bin/demo exited with " + demo.exitValue() + " before keeping the stack; "
                        + "output in " + output);
            }
            return read(output).contains("Lookup:");
        });
        String printed = read(output);
        assertFalse(printed.contains("ignores SIGINT"), "bin/demo left SIGINT ignored; output in " + output);

        Path envFile = Path.of(printedValue(printed, "Environment: +source (\\S+)"));
        Map<String, String> env = exports(envFile);
        assertEquals(Long.toString(demo.pid()), env.get("EI_DEMO_PID"), "EI_DEMO_PID of " + envFile);
        for (String endpoint : List.of("EI_BROKERS", "EI_S3_ENDPOINT", "EI_BUCKET", "EI_HDFS_URI", "EI_KUDU_MASTER",
                "EI_SUPERVISOR_URL", "EI_CONSUMER_URLS")) {
            assertTrue(env.containsKey(endpoint) && printed.contains(env.get(endpoint)),
                    endpoint + " of " + envFile + " is not printed: " + env.get(endpoint));
        }
        Path secrets = Path.of(env.get("EI_LOGINS_FILE")).getParent();
        assertEquals("rwx------", mode(secrets), "mode of " + secrets);
        try (var files = Files.list(secrets)) {
            for (Path f : files.toList()) {
                assertEquals("rw-------", mode(f), "mode of " + f);
            }
        }

        // The outside party: a dataset of its own, its manifest registered as the operator, one producer per job.
        Path outside = Files.createDirectories(work.resolve("outside"));
        GeneratedDataset ds = new DatasetGenerator(new GeneratorSpec(DATASET, 4, 500, 2, 1, 0, 10, false, 7L))
                .generate(outside);
        Path manifest = Files.write(outside.resolve(DATASET + ".manifest.json"), Json.write(ds.manifestMessage()));
        String registerManifest = printedValue(printed, "and a manifest: +(.+)");
        Shell register = shell(envFile, registerManifest.replace("NAME.manifest.json", StackAccess.shellQuote(
                manifest.toString())));
        assertEquals(0, register.exitCode(), register.output());
        String producer = printedValue(printed, "then a producer: +(.+)");
        List<GeneratedJob> jobs = ds.jobs(GeneratedJob.Outcome.REPORTED);
        assertTrue(jobs.size() >= 3, "the dataset needs a retried job: " + jobs.size() + " job attempts");
        for (GeneratedJob job : jobs) {
            Shell run = shell(envFile, producer.replace("FILE.ei.spb", StackAccess.shellQuote(job.spbFile().toString())));
            assertEquals(0, run.exitCode(), run.output());
        }

        String view = env.get("EI_SUPERVISOR_URL") + "/datasets/" + DATASET;
        Await.until(DATASET + " DONE at " + view, STEP_TIMEOUT,
                () -> HttpGets.body(view).contains("\"state\":\"DONE\""));
        String console = env.get("EI_SUPERVISOR_URL") + "/";
        assertTrue(printed.contains("Console:         " + console), "bin/demo --keep prints the console URL " + console);
        assertTrue(HttpGets.body(console).contains("<title>Overview"), "the console at " + console);
        try (KuduClient kudu = new KuduClient.KuduClientBuilder(env.get("EI_KUDU_MASTER")).build()) {
            DatasetQueries queries = new DatasetQueries(kudu,
                    new KuduTablesConfig("", KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1));
            DatasetsRow record = queries.dataset(DATASET)
                    .orElseThrow(() -> new AssertionError("no DATASETS row for " + DATASET));
            EventCounts counts = queries.countEvents(record.dspid(), record.rgid());
            assertEquals(ds.expectedUniqueEvents(), counts.events(), "EVENTS rows of " + DATASET);
            assertEquals(ds.crossFileDuplicates(), counts.duplicates(), "DUPLICATEDEVENTS rows of " + DATASET);
        }

        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).redirectErrorStream(true).start();
        assertEquals(0, kill.waitFor(), "kill -INT " + demo.pid());
        assertTrue(demo.waitFor(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                "bin/demo did not exit within " + STEP_TIMEOUT + " of SIGINT; output in " + output);
        assertEquals(0, demo.exitValue(), "exit status of bin/demo after SIGINT; output in " + output);
        String all = read(output);
        assertTrue(all.contains(STOP_LINE), "no '" + STOP_LINE + "' in " + output);
        String stop = all.substring(all.indexOf(STOP_LINE));
        assertTrue(stop.contains("[demo] stack stopped"), "no '[demo] stack stopped' in " + output);
        for (String bad : List.of("failed", "Exception", "\tat ")) {
            assertFalse(stop.contains(bad), "the stop printed '" + bad.strip() + "': see " + output);
        }
    }

    private record Shell(int exitCode, String output) {
    }

    /** Runs {@code command} in a bash that sourced {@code envFile}, from the project folder, without any other EI_ variable. */
    private Shell shell(Path envFile, String command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "source \"$0\" && " + command, envFile.toString())
                .directory(root.toFile()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("EI_"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("'" + command + "' did not exit within " + STEP_TIMEOUT + ": " + out);
        }
        return new Shell(p.exitValue(), "'" + command + "' exited " + p.exitValue() + ": " + out);
    }

    /** The {@code export NAME='value'} lines of an environment file that {@code bin/demo --keep} wrote. */
    private static Map<String, String> exports(Path envFile) throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        Pattern export = Pattern.compile("export (\\w+)='([^']*)'");
        List<String> unread = new ArrayList<>();
        for (String line : Files.readAllLines(envFile)) {
            Matcher m = export.matcher(line);
            if (m.matches()) {
                env.put(m.group(1), m.group(2));
            } else if (!line.startsWith("#")) {
                unread.add(line);
            }
        }
        assertEquals(List.of(), unread, "lines of " + envFile + " that are neither a comment nor an export");
        return env;
    }

    private String printedValue(String printed, String regex) {
        Matcher m = Pattern.compile(regex).matcher(printed);
        assertTrue(m.find(), "bin/demo printed no line matching '" + regex + "'; output in " + output);
        return m.group(1).strip();
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
