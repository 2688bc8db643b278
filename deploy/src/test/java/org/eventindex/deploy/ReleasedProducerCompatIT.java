package org.eventindex.deploy;

import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.supervisor.DatasetView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
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
 * Compatibility cell "producer 0.1.0 against this supervisor and consumer" (decision 0055, docs/compatibility.md):
 * the grid jar of release 0.1.0, as built from its tag by {@code bin/build-release v0.1.0}, stores objects and sends
 * its messages through this build's supervisor and consumer, on the whole embedded stack. One dataset is produced by
 * the released jar only; in the other, jobs alternate between the released jar and this build's (producers of
 * different versions in one dataset, as on the grid, a retried job's attempts included). Run by {@code bin/compat},
 * which passes the released jar as {@value #RELEASED_JAR}; not part of {@code bin/test} (building the tag costs about
 * two minutes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class ReleasedProducerCompatIT {
    static final String RELEASED_JAR = "ei.release.producer.jar";
    private static final String RELEASE = "0.1.0";

    @TempDir
    static Path work;

    private Path releasedJar;
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

    @Test
    void theJarUnderTestIsTheRelease() throws Exception {
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
                releasedJar.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "--version did not end");
        assertTrue(out.startsWith("eventindex-producer " + RELEASE + " "), out);
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
