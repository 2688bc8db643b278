package org.eventindex.deploy;

import org.apache.hadoop.fs.Path;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.names.DatasetName;
import org.eventindex.operator.OperatorMain;
import org.eventindex.supervisor.CollectionState;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code supervisor delete-dataset} on the real stack (broker with per-role logins, S3 server, HDFS, Kudu, supervisor,
 * a consumer, producer processes): a dataset loaded end to end is deleted from the supervisor, HDFS and Kudu; a run
 * that fails half-way (Kudu) is finished by running it again; a dataset a consumer may be loading is refused and
 * left alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class DeleteDatasetIT {
    private static final String LOADED = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String SIGNALLED = "data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831_tid13500001_00";

    @TempDir
    static java.nio.file.Path work;

    private EmbeddedStack stack;
    private PipelineRun pipeline;
    private GeneratedDataset loaded;
    private GeneratedDataset signalled;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    void loadOneDatasetAndSignalAnother() throws Exception {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "del_", 4, 1),
                s -> { });
        pipeline = new PipelineRun(stack, java.nio.file.Path.of(System.getProperty("ei.producer.jar")), s -> { });
        List<GeneratedDataset> all = pipeline.generate(List.of(
                new GeneratorSpec(LOADED, 4, 200, 1, 1, 0, 2, false, 1L),
                new GeneratorSpec(SIGNALLED, 2, 100, 1, 0, 0, 0, false, 2L)), work.resolve("spb"));
        loaded = all.get(0);
        signalled = all.get(1);
        pipeline.registerManifests(all);
        pipeline.runProducers(List.of(loaded), 2);
        pipeline.awaitDone(List.of(loaded), Duration.ofMinutes(5));
        // no consumer any more: the second dataset's signal waits in the broker, as if a load were in progress
        stack.consumers().get(0).close();
        pipeline.runProducers(List.of(signalled), 2);
        Await.until(SIGNALLED + " signalled", Duration.ofMinutes(2), () -> stack.supervisor().dataset(SIGNALLED)
                .map(DatasetView::state).orElse(null) == CollectionState.SIGNALLED);
    }

    @AfterAll
    void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void aLoadedDatasetIsDeletedEverywhereAndAnInterruptedDeleteIsFinishedByRunningItAgain() throws Exception {
        DatasetsRow row = stack.kuduQueries().dataset(LOADED).orElseThrow();
        assertTrue(stack.kuduQueries().countEvents(row.dspid(), row.rgid()).events() > 0, "rows loaded");
        assertEquals(1, hdfsFiles(LOADED));

        // Kudu fails (no such tables): the supervisor and HDFS parts are done, the command says what failed
        assertEquals(1, delete(LOADED, "missing_"), out());
        assertTrue(err().contains("Kudu " + stack.kuduMasters() + ": cannot delete the rows of dataset " + LOADED),
                err());
        assertTrue(stack.supervisor().dataset(LOADED).isEmpty(), "the supervisor forgot it");
        String tombstone = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + stack.supervisor().httpPort() + "/datasets/" + LOADED)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(tombstone.contains("\"state\":\"DELETED\"") && tombstone.contains("\"reason\":\"test\""),
                tombstone);
        assertEquals(0, hdfsFiles(LOADED));
        assertTrue(stack.kuduQueries().dataset(LOADED).isPresent(), "Kudu not done yet");

        reset();
        assertEquals(0, delete(LOADED, "del_"), err());
        assertTrue(out().contains("supervisor: dataset " + LOADED + " deleted from the supervisor at"), out());
        assertTrue(out().contains("HDFS: no file of " + LOADED), out());
        assertTrue(out().contains("Kudu: rows of " + LOADED + " deleted"), out());
        assertTrue(out().contains("dataset " + LOADED + " deleted everywhere"), out());
        assertTrue(stack.kuduQueries().dataset(LOADED).isEmpty(), "DATASETS row deleted");
        assertEquals(0, stack.kuduQueries().countEvents(row.dspid(), row.rgid()).events(), "EVENTS rows deleted");
        assertEquals(0, stack.kuduQueries().countEvents(row.dspid(), row.rgid()).duplicates(),
                "DUPLICATEDEVENTS rows deleted");

        reset();
        assertEquals(0, delete(LOADED, "del_"), "a third run finds nothing left and says so: " + err());
        assertTrue(out().contains("Kudu: " + LOADED + " is not in del_DATASETS; no rows"), out());
    }

    @Test
    void aDatasetAConsumerMayBeLoadingIsRefusedAndLeftAlone() throws Exception {
        assertEquals(3, delete(SIGNALLED, "del_"));
        assertTrue(err().contains("delete-dataset refused: WRONG_STATE: delete: dataset " + SIGNALLED
                + " is SIGNALLED"), err());
        assertTrue(err().contains("nothing deleted in HDFS or Kudu"), err());
        assertEquals(CollectionState.SIGNALLED, stack.supervisor().dataset(SIGNALLED).orElseThrow().state());
    }

    private int delete(String dataset, String kuduPrefix) {
        String[] args = {"delete-dataset", "--brokers", stack.broker().stompEndpoints(), "--user",
            BrokerLogins.OPERATOR, "--dataset", dataset, "--reason", "test", "--yes", "--hdfs-uri",
            stack.hdfs().uri().toString(), "--hdfs-root", stack.hdfsRoot(), "--kudu-masters", stack.kuduMasters(),
            "--kudu-prefix", kuduPrefix};
        return OperatorMain.run(args, new ByteArrayInputStream(new byte[0]), print(out), print(err),
                Map.of("EI_STOMP_PASSWORD", stack.brokerLogins().password(BrokerLogins.OPERATOR)));
    }

    private int hdfsFiles(String dataset) throws Exception {
        Path dir = new Path(stack.hdfsRoot(), DatasetName.parse(dataset).container());
        if (!stack.hdfs().fs().exists(dir)) {
            return 0;
        }
        return (int) java.util.Arrays.stream(stack.hdfs().fs().listStatus(dir))
                .filter(s -> s.getPath().getName().contains(dataset)).count();
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    private void reset() {
        out.reset();
        err.reset();
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
