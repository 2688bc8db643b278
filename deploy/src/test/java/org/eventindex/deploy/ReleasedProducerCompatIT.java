package org.eventindex.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.Json;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.kudu.LoadState;
import org.eventindex.operator.OperatorMain;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;
import org.eventindex.testing.CapturedOutput;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compatibility cells "producer 0.1.0 against this supervisor and consumer" and "this producer against supervisor
 * 0.1.0" (decision 0055, docs/compatibility.md):
 * the grid jar of release 0.1.0, as built from its tag by {@code bin/build-release v0.1.0}, stores objects and sends
 * its messages through this build's supervisor and consumer, on the whole embedded stack. One dataset is produced by
 * the released jar only; in the other, jobs alternate between the released jar and this build's (producers of
 * different versions in one dataset, as on the grid, a retried job's attempts included). Run by {@code bin/compat},
 * which passes the released jar as {@value #RELEASED_JAR}; not part of {@code bin/test} (building the tag costs about
 * two minutes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class ReleasedProducerCompatIT {
    static final String RELEASED_JAR = "ei.release.producer.jar";
    static final String RELEASED_TARBALL = "ei.release.tarball";
    private static final String RELEASE = "0.1.0";

    @TempDir
    static Path work;

    private Path releasedJar;
    private Path releasedTarball;
    private EmbeddedStack stack;
    private PipelineRun pipeline;
    private List<GeneratedDataset> datasets;
    private final List<ProducerLauncher.Run> releasedRuns = new ArrayList<>();
    private final List<ProducerLauncher.Run> currentRuns = new ArrayList<>();
    private final CapturedOutput output = new CapturedOutput();

    @BeforeAll
    void produceWithBothVersions() throws Exception {
        String released = System.getProperty(RELEASED_JAR);
        if (released == null || !Files.isRegularFile(Path.of(released))) {
            throw new IllegalStateException("system property " + RELEASED_JAR + " must name release " + RELEASE
                    + "'s eventindex-producer.jar (is: " + released + "); run bin/compat, which builds it with"
                    + " bin/build-release v" + RELEASE);
        }
        releasedJar = Path.of(released);
        String tarball = System.getProperty(RELEASED_TARBALL);
        if (tarball == null || !Files.isRegularFile(Path.of(tarball))) {
            throw new IllegalStateException("system property " + RELEASED_TARBALL + " must name release " + RELEASE
                    + "'s tarball (is: " + tarball + "); run bin/compat");
        }
        releasedTarball = Path.of(tarball);
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "compat_", 4,
                1), s -> { });
        pipeline = new PipelineRun(stack, Path.of(System.getProperty("ei.producer.jar")), s -> { });
        datasets = pipeline.generate(List.of(
                new GeneratorSpec("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 4, 200, 1, 1, 1, 2,
                        false, 11L),
                new GeneratorSpec("data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831", 6, 150, 1, 2, 1, 2,
                        false, 12L)), work.resolve("spb"));
        pipeline.registerManifests(datasets);
        List<Path> byRelease = new ArrayList<>();
        List<Path> byThisBuild = new ArrayList<>();
        datasets.get(0).jobs(GeneratedJob.Outcome.REPORTED).forEach(j -> byRelease.add(j.spbFile()));
        List<GeneratedJob> mixed = datasets.get(1).jobs(GeneratedJob.Outcome.REPORTED);
        for (int i = 0; i < mixed.size(); i++) {
            (i % 2 == 0 ? byRelease : byThisBuild).add(mixed.get(i).spbFile());
        }
        releasedRuns.addAll(new ProducerLauncher(releasedJar, stack.producerEndpoints(), 2).runAll(byRelease,
                r -> { }));
        currentRuns.addAll(new ProducerLauncher(Path.of(System.getProperty("ei.producer.jar")),
                stack.producerEndpoints(), 2).runAll(byThisBuild, r -> { }));
        pipeline.awaitDone(datasets, Duration.ofMinutes(3));
    }

    @AfterAll
    void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    /**
     * Cells "this build's consumer and operator commands against a supervisor 0.1.0" (docs/compatibility.md): release
     * 0.1.0's supervisor, run as a process from its tarball on a copy of this build's journal, with this build's
     * consumer (in the stack) and producer jar: this build's {@code register-manifest} is answered, the dataset is
     * signalled, loaded and reported DONE (signals, reports and heartbeats of both versions on one broker), then this
     * build's {@code resignal} is answered, the same signal sent again (0.1.0's re-run) and reported DONE by the
     * consumer, which finds it loaded: every event in Kudu once. Before the journal test, which stops the stack.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void theReleasesSupervisorWorksWithThisBuildsConsumerAndOperatorCommands() throws Exception {
        Path journal = work.resolve("supervisor-" + RELEASE);
        stack.stopSupervisor();
        Files.createDirectories(journal);
        try (var files = Files.list(work.resolve("stack/supervisor"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, journal.resolve(f.getFileName()));
            }
        }
        int port = Ports.free();
        Properties config = stack.supervisorSiteProperties(Map.of(SupervisorConfig.JOURNAL_DIR, journal.toString(),
                SupervisorConfig.HTTP_PORT, Integer.toString(port)));
        Path file = work.resolve("supervisor-" + RELEASE + ".properties");
        try (var o = Files.newOutputStream(file)) {
            config.store(o, "release " + RELEASE + "'s supervisor on this build's stack");
        }
        Path log = work.resolve("supervisor-" + RELEASE + ".log");
        Process supervisor = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                release().resolve("eventindex-" + RELEASE + "/lib") + "/*", "org.eventindex.supervisor.SupervisorMain",
                "run", "--config", file.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + port);
            Await.until("supervisor " + RELEASE + " ready (log " + log + ")", Duration.ofSeconds(60),
                    () -> supervisor.isAlive() && status(http, base.resolve("/ready")) == 200);
            GeneratedDataset ds = pipeline.generate(List.of(new GeneratorSpec(
                    "data18_13TeV.00350020.physics_Main.merge.AOD.f934_m1831", 3, 100, 1, 1, 0, 0, false, 13L)),
                    work.resolve("spb-" + RELEASE)).get(0);
            Path manifest = Files.write(work.resolve("manifest.json"), Json.write(ds.manifestMessage()));
            assertEquals(0, operator("register-manifest", "--file", manifest.toString()), output.err());
            assertTrue(output.out().contains("OK: manifest of dataset " + ds.datasetName()), output.out());
            pipeline.runProducers(List.of(ds), 2);
            String signal = awaitDone(http, base, ds.datasetName(), 0).get("signalId").asText();
            assertEventsOnce(ds, signal);

            // 0.1.0's resignal sends the same signal again: this build's consumer finds it loaded and reports DONE
            assertEquals(0, operator("resignal", "--dataset", ds.datasetName()), output.err());
            assertTrue(output.out().contains("OK"), output.out());
            assertEquals(signal, awaitDone(http, base, ds.datasetName(), 1).get("signalId").asText());
            assertEventsOnce(ds, signal);
        } finally {
            supervisor.destroy();
            supervisor.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private int operator(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--brokers", stack.brokerEndpoints(), "--user", BrokerLogins.OPERATOR, "--password-file",
                BrokerLogins.passwordFile(stack.secretsDir(), BrokerLogins.OPERATOR).toString()));
        output.reset();
        return OperatorMain.run(all.toArray(String[]::new),
                new java.io.ByteArrayInputStream(new byte[0]), output.outStream(), output.errStream(), Map.of());
    }

    /** {@code /datasets/NAME} of the released supervisor, once DONE after at least {@code resignals} resignals. */
    private static JsonNode awaitDone(HttpClient http, URI base, String dataset, int resignals) {
        JsonNode[] seen = new JsonNode[1];
        Await.until(dataset + " DONE in supervisor " + RELEASE, Duration.ofMinutes(2), () -> {
            try {
                HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(base.resolve("/datasets/" + dataset))
                        .build(), HttpResponse.BodyHandlers.ofByteArray());
                seen[0] = r.statusCode() == 200 ? Json.tree(r.body()) : null;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            return seen[0] != null && "DONE".equals(seen[0].path("state").asText())
                    && seen[0].path("resignals").asInt() >= resignals;
        });
        return seen[0];
    }

    private void assertEventsOnce(GeneratedDataset ds, String signalId) throws IOException {
        DatasetsRow row = stack.kuduQueries().dataset(ds.datasetName()).orElseThrow();
        assertEquals(List.of(LoadState.LOADED, signalId), List.of(row.state(), row.loadId()), ds.datasetName());
        EventCounts counts = stack.kuduQueries().countEvents(row.dspid(), row.rgid());
        assertEquals(ds.expectedEvents(), counts.events() + counts.duplicates(), ds.datasetName() + ": once");
    }

    private static int status(HttpClient http, URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Release 0.1.0's tarball unpacked (once) under the test's folder; returns the folder. */
    private Path release() throws IOException, InterruptedException {
        Path release = work.resolve("release");
        if (Files.isDirectory(release.resolve("eventindex-" + RELEASE))) {
            return release;
        }
        Files.createDirectories(release);
        Process untar = new ProcessBuilder("tar", "xzf", releasedTarball.toString(), "-C", release.toString())
                .redirectErrorStream(true).start();
        String untarOut = new String(untar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(untar.waitFor(2, TimeUnit.MINUTES) && untar.exitValue() == 0, untarOut);
        return release;
    }

    /**
     * Cell "journal of this build read by supervisor 0.1.0" (a downgrade): once this build's supervisor has stopped
     * (writing a checkpoint), release 0.1.0's own classes, from its tarball, restore that checkpoint and replay the
     * journal as its supervisor's start does, and find both datasets. Last, as it stops the stack.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void theReleasesSupervisorReadsThisBuildsJournal() throws Exception {
        Path journal = work.resolve("stack/supervisor");
        stack.close();
        stack = null;
        assertTrue(Files.exists(journal.resolve("supervisor.checkpoint")), "no checkpoint at the stop in " + journal);
        Path release = release();
        Path reader = work.resolve("ReadJournalAsRelease.java");
        try (var in = ReleasedProducerCompatIT.class.getResourceAsStream("/compat/ReadJournalAsRelease.java")) {
            Files.copy(java.util.Objects.requireNonNull(in, "no compat/ReadJournalAsRelease.java"), reader);
        }
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                release.resolve("eventindex-" + RELEASE + "/lib").toString() + "/*", reader.toString(),
                journal.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the release's reader did not end");
        assertEquals(0, p.exitValue(), "release " + RELEASE + " could not read this build's journal: " + out);
        assertTrue(out.matches("checkpoint [1-9][0-9]* entries [0-9]+ last [1-9][0-9]* datasets 2"), out);
    }

    @Test
    void theJarUnderTestIsTheRelease() throws Exception {
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
                releasedJar.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "--version did not end");
        assertTrue(out.startsWith("eventindex-producer " + RELEASE + " "), out);
    }

    /**
     * Cell "this build's producer against supervisor 0.1.0": the message this build's jar sends for a file is, field
     * for field, the one 0.1.0's jar sends (but for the per-run id, times, uuid and so object URL), so a 0.1.0
     * supervisor reads it as it reads its own producer's. The object's key and metadata fields are the same too.
     */
    @Test
    void thisBuildsProducerSendsTheReleasesMessageFieldForField() throws Exception {
        Path file = datasets.get(1).jobs(GeneratedJob.Outcome.REPORTED).get(0).spbFile();
        JsonNode released = dryRun(releasedJar, file);
        JsonNode current = dryRun(Path.of(System.getProperty("ei.producer.jar")), file);
        assertEquals(released, current, "the producer message differs from 0.1.0's");
    }

    /** The message a dry run prints, without what differs from run to run. */
    private static JsonNode dryRun(Path jar, Path file) throws Exception {
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar", jar.toString(),
                file.toString(), "--dry-run", "--json", "--s3-endpoint", "http://rgw.example:7480", "--bucket",
                "eventindex").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), jar + " --dry-run did not end");
        assertEquals(0, p.exitValue(), jar + ": " + new String(out, StandardCharsets.UTF_8));
        ObjectNode message = (ObjectNode) Json.tree(out).get("message");
        message.remove(List.of("ts", "id"));
        ObjectNode data = (ObjectNode) message.get("data");
        assertTrue(data.get("url").asText().endsWith("_" + data.get("uuid").asText() + ".ei.spb"), data.toString());
        data.remove(List.of("uuid", "timestamp", "url"));
        return message;
    }

    @Test
    void everyProducerOfBothVersionsSucceeded() {
        assertTrue(releasedRuns.size() >= 5 && currentRuns.size() >= 3, releasedRuns.size() + " released runs, "
                + currentRuns.size() + " of this build");
        for (ProducerLauncher.Run r : releasedRuns) {
            assertEquals(0, r.exitCode(), r.spbFile() + ": " + r.output());
            assertTrue(r.output().contains("acknowledged on /queue/atlas.eventindex.supervisor"), r.output());
        }
        for (ProducerLauncher.Run r : currentRuns) {
            assertEquals(0, r.exitCode(), r.spbFile() + ": " + r.output());
        }
    }

    @Test
    void bothDatasetsAreInKuduExactlyOnceWithDuplicatesNeverRead() throws IOException {
        for (GeneratedDataset ds : datasets) {
            DatasetFigures f = pipeline.measure(ds);
            assertEquals(List.of(), f.problems(), ds.datasetName());
            assertEquals(1, f.hdfsFiles(), ds.datasetName());
            assertEquals(ds.expectedUniqueEvents(), f.eventsInKudu(), ds.datasetName());
            assertTrue(f.objectsProduced() > f.objectsRead(), "a retried job's duplicate object was read in "
                    + ds.datasetName() + ": " + f);
            DatasetView view = stack.supervisor().dataset(ds.datasetName()).orElseThrow();
            assertEquals(ds.jobs(GeneratedJob.Outcome.REPORTED).size(), view.objectsReported(),
                    "every producer's message recorded, none refused: " + view);
        }
    }
}
