package org.eventindex.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.Json;
import org.eventindex.supervisor.DatasetView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
        Path release = Files.createDirectories(work.resolve("release"));
        Process untar = new ProcessBuilder("tar", "xzf", releasedTarball.toString(), "-C", release.toString())
                .redirectErrorStream(true).start();
        String untarOut = new String(untar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(untar.waitFor(2, TimeUnit.MINUTES) && untar.exitValue() == 0, untarOut);
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
