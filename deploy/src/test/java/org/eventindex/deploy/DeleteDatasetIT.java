package org.eventindex.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.fs.Path;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.message.Json;
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
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code supervisor delete-dataset} on the real stack (broker with per-role logins, S3 server, HDFS, Kudu, supervisor,
 * a consumer, producer processes): a dataset loaded end to end is deleted from the supervisor, HDFS and Kudu; runs
 * with HDFS and Kudu down say what is left, the supervisor lists it with the command that finishes it, and that
 * command finishes it; a dataset a consumer may be loading is refused and left alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class DeleteDatasetIT {
    private static final String LOADED = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String SIGNALLED = "data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831_tid13500001_00";

    @TempDir
    static java.nio.file.Path work;

    private EmbeddedStack stack;
    private java.nio.file.Path hadoopConf;
    private PipelineRun pipeline;
    private GeneratedDataset loaded;
    private GeneratedDataset signalled;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    void loadOneDatasetAndSignalAnother() throws Exception {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "del_", 4, 1),
                s -> { });
        // the operator's Hadoop client folder, given to the command and so part of the command that finishes it
        hadoopConf = Files.createDirectories(work.resolve("hadoop-conf"));
        Files.writeString(hadoopConf.resolve("core-site.xml"), "<configuration><property>"
                + "<name>ipc.client.connect.max.retries</name><value>0</value></property></configuration>");
        Files.writeString(hadoopConf.resolve("hdfs-site.xml"), "<configuration/>");
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

    /**
     * HDFS refusing the user and Kudu down, then Kudu still down, then Kudu back: each run does what it can, the
     * supervisor's tombstone (and /supervisor, the console) says what is left and the command that finishes it, and
     * that very command, run again, finishes it. (An unreachable NameNode is said in one line as well:
     * {@code ClusterErrorsTest}.)
     */
    @Test
    void anInterruptedDeleteSaysWhatIsLeftAndItsOwnCommandFinishesIt() throws Exception {
        DatasetsRow row = stack.kuduQueries().dataset(LOADED).orElseThrow();
        assertTrue(stack.kuduQueries().countEvents(row.dspid(), row.rgid()).events() > 0, "rows loaded");
        assertEquals(1, hdfsFiles(LOADED));

        // HDFS refuses the user and Kudu is down: the supervisor forgets it, nothing else is done, the command says so
        stack.kudu().killMasters();
        assertEquals(OperatorMain.INCOMPLETE, org.apache.hadoop.security.UserGroupInformation.createRemoteUser("alice")
                .doAs((java.security.PrivilegedAction<Integer>) () -> delete(LOADED, "del_")), out());
        assertTrue(err().contains("HDFS: not deleted: HDFS " + stack.hdfs().uri() + ": cannot delete the file of"
                + " dataset " + LOADED + " in " + stack.hdfsRoot() + "/" + DatasetName.parse(LOADED).container()
                + ": permission denied (user=alice, access=WRITE, inode="), "one readable reason: " + err());
        assertTrue(err().contains("Kudu: not deleted: Kudu " + stack.kuduMasters() + ": cannot delete the rows of"
                + " dataset " + LOADED + ": Kudu masters " + stack.kuduMasters() + " unreachable after 2 s"), err());
        assertFalse(err().contains("\tat org.apache"), "no stack trace: " + err());
        assertTrue(err().contains("is NOT deleted everywhere. Left: HDFS_FILE, KUDU_ROWS"), err());
        assertTrue(stack.supervisor().dataset(LOADED).isEmpty(), "the supervisor forgot it");
        JsonNode tombstone = json("/datasets/" + LOADED);
        assertEquals("DELETED", tombstone.path("state").asText());
        assertEquals("test", tombstone.path("reason").asText());
        assertEquals(List.of("HDFS_FILE", "KUDU_ROWS"), texts(tombstone.path("stepsLeft")));
        String finish = tombstone.path("finishWith").asText();
        assertTrue(err().endsWith(finish + System.lineSeparator()), "the command prints the same: " + err());
        assertEquals("eventindex supervisor delete-dataset --brokers " + stack.broker().stompEndpoints() + " --dataset "
                + LOADED + " --hdfs-uri " + stack.hdfs().uri() + " --hdfs-root " + stack.hdfsRoot() + " --kudu-masters "
                + stack.kuduMasters() + " --kudu-prefix del_ --hadoop-conf-dir " + hadoopConf + " --yes", finish);
        JsonNode unfinished = json("/supervisor").path("deletesUnfinished");
        assertEquals(LOADED, unfinished.path(0).path("dataset").asText(), unfinished.toString());
        assertTrue(json("/console/overview").path("needsOperator").toString().contains("delete-dataset did not"
                + " finish: left: its HDFS file, its Kudu rows"), "the console lists it");
        assertEquals(1, hdfsFiles(LOADED));

        // as the consumers' user, Kudu still down: the file goes, the rows are left
        reset();
        assertEquals(OperatorMain.INCOMPLETE, finish(finish));
        assertTrue(out().contains("HDFS: deleted "), out());
        assertTrue(out().contains("supervisor: dataset " + LOADED + ": HDFS_FILE done; left: its Kudu rows"), out());
        assertEquals(0, hdfsFiles(LOADED));
        assertEquals(List.of("KUDU_ROWS"), texts(json("/datasets/" + LOADED).path("stepsLeft")));

        // Kudu back: the same command finishes it
        stack.kudu().startMasters();
        reset();
        assertEquals(0, finish(finish), err());
        assertTrue(out().contains("supervisor: dataset " + LOADED + " deleted from the supervisor at"), out());
        assertTrue(out().contains("HDFS: no file of " + LOADED), out());
        assertTrue(out().contains("Kudu: rows of " + LOADED + " deleted"), out());
        assertTrue(out().contains("dataset " + LOADED + " deleted everywhere"), out());
        assertTrue(stack.kuduQueries().dataset(LOADED).isEmpty(), "DATASETS row deleted");
        assertEquals(0, stack.kuduQueries().countEvents(row.dspid(), row.rgid()).events(), "EVENTS rows deleted");
        assertEquals(0, stack.kuduQueries().countEvents(row.dspid(), row.rgid()).duplicates(),
                "DUPLICATEDEVENTS rows deleted");
        JsonNode done = json("/datasets/" + LOADED);
        assertEquals(List.of(), texts(done.path("stepsLeft")), done.toString());
        assertTrue(done.path("finishWith").isNull(), done.toString());
        assertEquals(0, json("/supervisor").path("deletesUnfinished").size());

        reset();
        assertEquals(0, finish(finish), "a further run finds nothing left and says so: " + err());
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
            "--kudu-prefix", kuduPrefix, "--hadoop-conf-dir", hadoopConf.toString(), "--kudu-timeout", "2"};
        return run(List.of(args));
    }

    /** The printed command ({@code eventindex supervisor ...}) as an operator runs it, with the login added. */
    private int finish(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")).subList(2, command.split(" ").length));
        args.addAll(List.of("--user", BrokerLogins.OPERATOR, "--kudu-timeout", "2"));
        return run(args);
    }

    private int run(List<String> args) {
        return OperatorMain.run(args.toArray(String[]::new), new ByteArrayInputStream(new byte[0]), print(out),
                print(err), Map.of("EI_STOMP_PASSWORD", stack.brokerLogins().password(BrokerLogins.OPERATOR)));
    }

    private JsonNode json(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + stack.supervisor().httpPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return Json.mapper().readTree(r.body());
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
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
