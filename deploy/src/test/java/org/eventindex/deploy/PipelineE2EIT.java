package org.eventindex.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.Path;
import org.eventindex.ProjectVersion;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.message.Queues;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;
import org.eventindex.stomp.StompSender;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.supervisor.ResignalCommand;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole pipeline on real components: ActiveMQ (STOMP), an S3 server, HDFS, Kudu binaries, the supervisor and
 * two competing consumers, fed by producer jar processes. Three datasets, 30 files, multi-file jobs, retried jobs whose
 * objects duplicate files, crashed jobs that never report, and events duplicated across files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class PipelineE2EIT {
    @TempDir
    static java.nio.file.Path work;

    private EmbeddedStack stack;
    private PipelineRun pipeline;
    private List<GeneratedDataset> datasets;
    private final List<DatasetFigures> figures = new ArrayList<>();

    @BeforeAll
    void runPipeline() throws Exception {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 2, "eventindex", "e2e_", 64, 1),
                s -> { });
        java.nio.file.Path jar = java.nio.file.Path.of(System.getProperty("ei.producer.jar"));
        pipeline = new PipelineRun(stack, jar, s -> { });
        datasets = pipeline.generate(specs(), work.resolve("spb"));
        pipeline.registerManifests(datasets);
        pipeline.runProducers(datasets, 3);
        pipeline.awaitDone(datasets, Duration.ofMinutes(10));
        for (GeneratedDataset ds : datasets) {
            figures.add(pipeline.measure(ds));
        }
    }

    @AfterAll
    void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    private static List<GeneratorSpec> specs() {
        return List.of(
                new GeneratorSpec("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824",
                        12, 400, 1, 3, 1, 4, false, 1L),
                new GeneratorSpec("data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831_tid13500001_00",
                        10, 300, 3, 2, 1, 2, false, 2L),
                new GeneratorSpec("mc16_13TeV.361107.PowhegPythia8EvtGen_Zmumu.merge.AOD.e3601_s3126_r10201",
                        8, 250, 2, 1, 1, 1, true, 3L));
    }

    @Test
    void everyDatasetHasExactlyOneHdfsFileAndExactEventCounts() {
        for (int i = 0; i < datasets.size(); i++) {
            GeneratedDataset ds = datasets.get(i);
            DatasetFigures f = figures.get(i);
            assertEquals(1, f.hdfsFiles(), ds.datasetName());
            assertEquals(ds.expectedUniqueEvents(), f.eventsInKudu(), "EVENTS/MCEVENTS rows of " + ds.datasetName());
            assertEquals(List.of(), f.problems());
        }
    }

    @Test
    void crossFileDuplicatesGoToDuplicatedEvents() {
        for (int i = 0; i < datasets.size(); i++) {
            GeneratedDataset ds = datasets.get(i);
            assertTrue(ds.crossFileDuplicates() > 0, "the scenario needs cross-file duplicates in " + ds.datasetName());
            assertEquals(ds.crossFileDuplicates(), figures.get(i).duplicatesInKudu(), ds.datasetName());
        }
    }

    /** One object per job is read; retries that only duplicate files are never fetched. */
    @Test
    void objectsCoveredOnlyByDuplicatesAreNeverFetched() {
        long skippedInAll = 0;
        for (GeneratedDataset ds : datasets) {
            DatasetView view = stack.supervisor().dataset(ds.datasetName()).orElseThrow();
            Set<String> selectedKeys = view.selectedObjects().stream().map(o -> key(o.url())).collect(Collectors.toSet());
            Set<List<String>> jobs = ds.jobs(GeneratedJob.Outcome.REPORTED).stream().map(GeneratedJob::guids)
                    .collect(Collectors.toSet());
            assertEquals(jobs.size(), selectedKeys.size(), "objects selected for " + ds.datasetName());
            for (String key : datasetKeys(ds)) {
                long gets = stack.s3().getCount("eventindex", key);
                if (selectedKeys.contains(key)) {
                    assertTrue(gets >= 1, "selected object " + key + " was never read");
                } else {
                    assertEquals(0, gets, "duplicate object " + key + " was read");
                    skippedInAll++;
                }
            }
        }
        assertEquals(3 + 2 + 1, skippedInAll, "duplicate objects skipped (one per duplicated job)");
    }

    @Test
    void redeliveredSignalChangesNothing() throws Exception {
        GeneratedDataset ds = datasets.get(0);
        String name = ds.datasetName();
        DatasetView before = stack.supervisor().dataset(name).orElseThrow();
        DatasetsRow recordBefore = stack.kuduQueries().dataset(name).orElseThrow();
        EventCounts countsBefore = stack.kuduQueries().countEvents(recordBefore.dspid(), recordBefore.rgid());
        Path file = hdfsFile(name);
        FileChecksum sumBefore = stack.hdfs().fs().getFileChecksum(file);
        long modifiedBefore = stack.hdfs().fs().getFileStatus(file).getModificationTime();

        try (StompSender sender = new StompSender(stack.operatorStomp())) {
            sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ResignalCommand.of(name)), Map.of());
        }
        // The consumer handled it again once a new report (later reportedAt) is recorded.
        Await.until("second consumer report for " + name, Duration.ofMinutes(3), () -> {
            DatasetView v = stack.supervisor().dataset(name).orElseThrow();
            return v.consumer() != null && v.consumer().reportedAt().isAfter(before.consumer().reportedAt());
        });

        DatasetView after = stack.supervisor().dataset(name).orElseThrow();
        assertEquals("DONE", after.consumer().status());
        assertEquals(before.signalId(), after.signalId());
        assertEquals(1, after.resignals());
        assertNotEquals(modifiedBefore, stack.hdfs().fs().getFileStatus(file).getModificationTime(),
                "the file should have been rewritten by the second delivery");
        assertEquals(sumBefore, stack.hdfs().fs().getFileChecksum(file), "HDFS file content changed");
        assertEquals(1, pipeline.measure(ds).hdfsFiles());
        DatasetsRow recordAfter = stack.kuduQueries().dataset(name).orElseThrow();
        assertEquals(countsBefore, stack.kuduQueries().countEvents(recordAfter.dspid(), recordAfter.rgid()));
        assertEquals(recordBefore, recordAfter, "DATASETS row changed: the load was not skipped");
    }

    @Test
    void aMessageNamingAnotherJobsObjectIsRejected() throws Exception {
        GeneratedDataset ds = datasets.get(1);
        String name = ds.datasetName();
        DatasetView before = stack.supervisor().dataset(name).orElseThrow();
        String victimKey = datasetKeys(ds).get(0);
        ObjectKey victim = ObjectKey.parse(victimKey);
        String url = "s3://" + stack.s3().endpoint().getHost() + ":" + stack.s3().endpoint().getPort() + "/"
                + stack.options().bucket() + "/" + victimKey;
        // With the shared producer login: "job <victim job>9" announces the object the real producer stored.
        ProducerInfo forged = new ProducerInfo(100, 200, "1", victim.taskID(), victim.jobID() + "9", 1, 2, name, 1, 1,
                1, "0123456789abcdef0123456789abcdef", 3, url, List.of(new GuidInfo(ds.jobs().get(0).guids().get(0),
                0, 1, 1, 1, 2, "f1", "physics_Main", "data18_13TeV", Map.of("350013", new EventRange(1, 1)))));
        double rejectedBefore = DaemonMetrics.value(stack.supervisor().metrics(),
                "eventindex_supervisor_rejected_total", "reason", "wrong_key");
        try (StompSender sender = new StompSender(stack.brokerLogins().settings(stack.broker().stompEndpoints(),
                BrokerLogins.PRODUCER))) {
            sender.send(Queues.SUPERVISOR, Json.write(new ProducerMessage(ProducerMessage.TYPE_OBJECT_STORED,
                    System.currentTimeMillis(), "forged-1", forged)), Map.of());
        }
        Await.until("the forged message rejected", Duration.ofMinutes(1), () -> DaemonMetrics.value(
                stack.supervisor().metrics(), "eventindex_supervisor_rejected_total", "reason", "wrong_key")
                == rejectedBefore + 1);
        DatasetView after = stack.supervisor().dataset(name).orElseThrow();
        assertEquals(before.objectsReported(), after.objectsReported(), "the forged message was recorded");
        assertEquals(before.state(), after.state());
        assertEquals(before.signalId(), after.signalId());
    }

    @Test
    void theSupervisorListsEveryConsumerFromItsHeartbeatsAndEachIsReadyWithHdfsAndKudu() throws Exception {
        // the consumers log in with the consumer role: their heartbeats pass the broker's per-role rules
        Await.until("both consumers listed with a heartbeat", Duration.ofMinutes(1), () -> {
            JsonNode consumers = getJson(stack.supervisor().httpPort(), "/consumers").get("consumers");
            int heard = 0;
            for (JsonNode c : consumers) {
                JsonNode h = c.get("heartbeat");
                heard += h != null && !h.isNull() && !h.get("missing").asBoolean() ? 1 : 0;
            }
            return heard == 2;
        });
        for (JsonNode c : getJson(stack.supervisor().httpPort(), "/consumers").get("consumers")) {
            JsonNode h = c.get("heartbeat");
            assertEquals(ProjectVersion.get(), h.get("version").asText(), c.toString());
            assertTrue(Set.of("idle", "busy").contains(h.get("state").asText()), c.toString());
            assertTrue(c.get("consumer").asText().startsWith("consumer-"), c.toString());
        }
        for (org.eventindex.consumer.Consumer c : stack.consumers()) {
            JsonNode ready = getJson(c.httpPort(), "/ready");
            assertTrue(ready.get("ready").asBoolean(), ready.toString());
            assertEquals("hdfs", ready.get("dependencies").get(0).get("name").asText(), ready.toString());
            assertEquals("kudu", ready.get("dependencies").get(1).get("name").asText(), ready.toString());
        }
    }

    private static JsonNode getJson(int port, String path) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
            return Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AssertionError("GET " + path + " on port " + port + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private Path hdfsFile(String dataset) throws Exception {
        Path dir = new Path(stack.hdfsRoot(), DatasetName.parse(dataset).container());
        Path file = new Path(dir, dataset + org.eventindex.consolidated.ConsolidatedSchema.SUFFIX);
        assertTrue(stack.hdfs().fs().exists(file), "missing " + file);
        return file;
    }

    private List<String> datasetKeys(GeneratedDataset ds) {
        Set<String> tasks = new HashSet<>();
        ds.jobs().forEach(j -> tasks.add(j.taskID()));
        return stack.s3().keys("eventindex").stream()
                .filter(k -> tasks.stream().anyMatch(t -> k.substring(k.lastIndexOf('/') + 1).startsWith(t + "_")))
                .toList();
    }

    private static String key(String url) {
        return org.eventindex.message.S3ObjectUrl.parse(url).key();
    }
}
