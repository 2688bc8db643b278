package org.eventindex.deploy;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.kudu.LoadState;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.operator.OperatorMain;
import org.eventindex.supervisor.CollectionState;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.supervisor.Supervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.Await;
import org.eventindex.testing.CapturedOutput;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 34 item 1 on the real stack (secured broker, S3 server, HDFS, Kudu, supervisor, a consumer, producer
 * processes): the supervisor's journal folder is backed up, more datasets run through the whole flow, the supervisor is
 * stopped and the backup restored (it forgets every message acknowledged since), {@code supervisor rebuild-state}
 * brings it up to date from the bucket, HDFS and Kudu, and the supervisor started again knows every dataset DONE as
 * Kudu holds it: each is in Kudu once, at the placement it was loaded at, nothing is loaded again. Its cleanup then
 * deletes the forgotten objects only as objects of their DONE datasets, never as orphans, and keeps the one object the
 * rebuild could not decide (decision 0054).
 */
final class RestoreRebuildIT {
    private static final String BUCKET = "eventindex";
    private static final String A = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String C = "data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831";
    private static final String D = "data18_13TeV.00350014.physics_Main.merge.AOD.f934_m1831";
    private static final String FOREIGN = "not-from-a-producer.txt";

    @TempDir
    static Path work;

    private EmbeddedStack stack;
    private ZooKeeperEnsemble zk;
    private final CapturedOutput output = new CapturedOutput();

    @AfterEach
    void stopStack() {
        if (stack != null) {
            stack.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    void aRestoredJournalRebuiltFromTheSourcesOfTruthLosesNothing() throws Exception {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, BUCKET, "rb_", 4, 1),
                s -> { });
        PipelineRun pipeline = new PipelineRun(stack, Path.of(System.getProperty("ei.producer.jar")), s -> { });
        List<GeneratedDataset> all = pipeline.generate(List.of(
                new GeneratorSpec(A, 2, 100, 1, 0, 0, 0, false, 1L),
                new GeneratorSpec(C, 3, 100, 1, 1, 0, 0, false, 3L), // a duplicated job: an object never selected
                new GeneratorSpec(D, 2, 100, 1, 0, 0, 0, false, 4L)), work.resolve("spb"));
        List<GeneratedDataset> before = all.subList(0, 1);
        List<GeneratedDataset> after = all.subList(1, 3);
        pipeline.registerManifests(before);
        pipeline.runProducers(before, 2);
        pipeline.awaitDone(before, Duration.ofMinutes(3));

        // the backup: a copy of the journal folder of the stopped supervisor
        Path journal = stack.supervisorJournalDir();
        Path backup = work.resolve("backup");
        stack.stopSupervisor();
        copy(journal, backup);
        stack.startSupervisor(Map.of(), Clock.systemUTC());

        pipeline.registerManifests(after);
        pipeline.runProducers(after, 2);
        pipeline.awaitDone(after, Duration.ofMinutes(3));
        try (S3Client s3 = s3()) {
            s3.putObject(b -> b.bucket(BUCKET).key(FOREIGN), RequestBody.fromString("not an SPB file"));
        }
        Path config = writeConfig();
        assertEquals(1, rebuild(config), "refused while the supervisor runs: " + output.out());
        assertTrue(output.err().contains("is in use by another supervisor") && output.err().contains("held by process "), output.err());

        Map<String, DatasetsRow> loaded = new HashMap<>();
        for (GeneratedDataset ds : all) {
            loaded.put(ds.datasetName(), stack.kuduQueries().dataset(ds.datasetName()).orElseThrow());
        }
        List<String> objects = stack.s3().keys(BUCKET);
        stack.stopSupervisor();
        deleteTree(journal);
        copy(backup, journal);
        String restored = Files.readString(journal.resolve(Journal.FILE_NAME));

        output.reset();
        assertEquals(6, rebuild(config, "--dry-run"), output.err());
        assertTrue(output.out().contains("would record object "), output.out());
        assertTrue(output.out().contains("would dataset " + C + ": DONE as Kudu holds it (load "
                + loaded.get(C).loadId()), output.out());
        assertEquals(restored, Files.readString(journal.resolve(Journal.FILE_NAME)), "a dry run writes nothing");

        output.reset();
        assertEquals(6, rebuild(config, "--json"), "done, one thing undecided: " + output.err());
        String json = output.out();
        assertTrue(json.contains("\"written\":true") && json.contains("\"signalsRebuilt\":2")
                && json.contains("\"objectsRecorded\":" + (3 + 1 + 2)), json);
        assertTrue(json.contains("\"what\":\"object " + FOREIGN + "\""), json);
        assertTrue(output.err().contains("rebuild-state: objects: " + (objects.size()) + " examined"), output.err());

        // started again, on a clock past every retention: the cleanup's first pass decides at once
        stack.startSupervisor(Map.of(SupervisorConfig.S3_ENDPOINT, stack.s3().endpoint().toString(),
                SupervisorConfig.S3_ACCESS_KEY, EmbeddedStack.S3_ACCESS_KEY,
                SupervisorConfig.S3_SECRET_KEY_FILE, stack.s3SecretKeyFile().toString(),
                SupervisorConfig.CLEANUP_INTERVAL, "1s"), Clock.offset(Clock.systemUTC(), Duration.ofHours(721)));
        Set<Integer> dspids = new HashSet<>();
        for (GeneratedDataset ds : all) {
            String name = ds.datasetName();
            DatasetView view = stack.supervisor().dataset(name).orElseThrow();
            assertEquals(CollectionState.DONE, view.state(), name);
            DatasetsRow row = loaded.get(name);
            assertEquals(row.loadId(), view.signalId(), name + ": the load Kudu holds");
            assertEquals(List.of(row.dspid(), row.rgid()), List.of(view.dspid(), view.epoch()), name);
            assertTrue(dspids.add(row.dspid()), "one dspid per dataset");
        }
        Await.until("a cleanup pass", Duration.ofSeconds(30), () -> stack.s3().keys(BUCKET).size() == 1);
        for (GeneratedDataset ds : all) {
            String name = ds.datasetName();
            DatasetsRow row = stack.kuduQueries().dataset(name).orElseThrow();
            assertEquals(loaded.get(name), row, name + ": not loaded again");
            assertEquals(LoadState.LOADED, row.state());
            EventCounts counts = stack.kuduQueries().countEvents(row.dspid(), row.rgid());
            assertEquals(ds.expectedEvents(), counts.events() + counts.duplicates(), name + ": every event once");
            assertNotNull(stack.supervisor().dataset(name).orElseThrow().retiredAt(),
                    name + ": its objects deleted as a DONE dataset's, then retired");
        }
        var metrics = stack.supervisor().metrics();
        assertEquals(0, DaemonMetrics.value(metrics, "eventindex_supervisor_orphans_deleted_total"));
        assertEquals(objects.size() - 1, DaemonMetrics.value(metrics, "eventindex_supervisor_objects_deleted_total"),
                "every object but the foreign one, as its dataset's");
        assertEquals(List.of(FOREIGN), stack.s3().keys(BUCKET), "the undecided object is kept");
        assertEquals(1, DaemonMetrics.value(metrics, "eventindex_supervisor_cleanup_orphans_kept"));
    }

    /**
     * The same on a supervisor pair with the lease in ZooKeeper and the journal on HDFS (decision 0062): the backup is
     * a copy of the newest journal generation on HDFS, the restore puts it back into the newest generation (its
     * {@code handover} file kept), the rebuild is refused while a supervisor holds the lease, then takes the next
     * token itself and appends through the supervisors' HDFS journal code; the pair started afterwards has one active
     * supervisor that knows every dataset DONE as Kudu holds it, loaded once.
     */
    @Test
    void onTheZooKeeperAndHdfsStoresThePairStartsFromTheRebuiltJournal() throws Exception {
        Path base = work.resolve("ha");
        stack = EmbeddedStack.start(new EmbeddedStack.Options(base.resolve("stack"), 1, BUCKET, "rh_", 4, 1),
                s -> { });
        zk = ZooKeeperEnsemble.start(base.resolve("zk"), 1);
        Map<String, String> ha = haSettings(base);
        PipelineRun pipeline = new PipelineRun(stack, Path.of(System.getProperty("ei.producer.jar")), s -> { });
        List<GeneratedDataset> all = pipeline.generate(List.of(
                new GeneratorSpec(A, 2, 100, 1, 0, 0, 0, false, 1L),
                new GeneratorSpec(C, 3, 100, 1, 1, 0, 0, false, 3L)), base.resolve("spb"));
        List<GeneratedDataset> before = all.subList(0, 1);
        List<GeneratedDataset> after = all.subList(1, 2);
        startActive(ha, "sup-a");
        pipeline.registerManifests(before);
        pipeline.runProducers(before, 2);
        pipeline.awaitDone(before, Duration.ofMinutes(3));

        // the backup: the newest generation's journal files on HDFS, the pair stopped
        stack.stopSupervisor();
        FileSystem fs = stack.hdfs().fs();
        org.apache.hadoop.fs.Path journal = new org.apache.hadoop.fs.Path(HA_JOURNAL);
        Path backup = Files.createDirectories(base.resolve("backup"));
        for (FileStatus f : fs.listStatus(newestGeneration(fs, journal))) {
            if (!f.getPath().getName().equals(HANDOVER)) {
                fs.copyToLocalFile(f.getPath(), new org.apache.hadoop.fs.Path(backup.resolve(f.getPath().getName())
                        .toUri()));
            }
        }
        startActive(ha, "sup-a");
        pipeline.registerManifests(after);
        pipeline.runProducers(after, 2);
        pipeline.awaitDone(after, Duration.ofMinutes(3));

        Path config = writeConfig(ha);
        assertEquals(1, rebuild(config), output.out());
        assertTrue(output.err().contains("supervisor sup-a holds the lease (token 2) in ZooKeeper "), output.err());
        Map<String, DatasetsRow> loaded = new HashMap<>();
        for (GeneratedDataset ds : all) {
            loaded.put(ds.datasetName(), stack.kuduQueries().dataset(ds.datasetName()).orElseThrow());
        }

        // the restore: the newest generation's journal files replaced by the backup's
        stack.stopSupervisor();
        org.apache.hadoop.fs.Path newest = newestGeneration(fs, journal);
        assertEquals("generation-2", newest.getName());
        for (FileStatus f : fs.listStatus(newest)) {
            if (!f.getPath().getName().equals(HANDOVER)) {
                fs.delete(f.getPath(), false);
            }
        }
        try (Stream<Path> files = Files.list(backup)) {
            for (Path f : files.toList()) {
                fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(f.toUri()),
                        new org.apache.hadoop.fs.Path(newest, f.getFileName().toString()));
            }
        }

        output.reset();
        assertEquals(0, rebuild(config, "--json"), output.err());
        String json = output.out();
        assertTrue(json.contains("\"written\":true") && json.contains("\"signalsRebuilt\":1")
                && json.contains("\"objectsRecorded\":" + (3 + 1)), json);
        assertTrue(output.err().contains("rebuild-state: holding token 3; journal " + fs.makeQualified(
                new org.apache.hadoop.fs.Path(journal, "generation-3"))), output.err());

        // the pair: one takes the lease from the released rebuild, the other stands by
        stack.startSupervisor(ha(ha, "sup-a"), Clock.systemUTC());
        Supervisor b = new Supervisor(SupervisorConfig.fromProperties(stack.supervisorSiteProperties(ha(ha, "sup-b")),
                Map.of()), Clock.systemUTC());
        try (b) {
            b.start();
            Supervisor a = stack.supervisor();
            Await.until("one supervisor of the pair active", Duration.ofSeconds(60),
                    () -> role(a) == Leadership.Role.ACTIVE || role(b) == Leadership.Role.ACTIVE);
            Supervisor active = role(a) == Leadership.Role.ACTIVE ? a : b;
            Supervisor standby = active == a ? b : a;
            assertEquals(Leadership.Role.STANDBY, role(standby));
            assertEquals(4, active.leadership().orElseThrow().token(), "the token after the rebuild's");
            Set<Integer> dspids = new HashSet<>();
            for (GeneratedDataset ds : all) {
                String name = ds.datasetName();
                DatasetView view = active.dataset(name).orElseThrow();
                assertEquals(CollectionState.DONE, view.state(), name);
                DatasetsRow row = stack.kuduQueries().dataset(name).orElseThrow();
                assertEquals(loaded.get(name), row, name + ": not loaded again");
                assertEquals(row.loadId(), view.signalId(), name + ": the load Kudu holds");
                assertEquals(List.of(row.dspid(), row.rgid()), List.of(view.dspid(), view.epoch()), name);
                assertTrue(dspids.add(row.dspid()), "one dspid per dataset");
                EventCounts counts = stack.kuduQueries().countEvents(row.dspid(), row.rgid());
                assertEquals(ds.expectedEvents(), counts.events() + counts.duplicates(), name + ": every event once");
            }
        }
    }

    private static final String HA_JOURNAL = "/eventindex/supervisor/journal";
    private static final String HANDOVER = "handover";

    /** The pair's settings: lease in the test's ZooKeeper, journal on the stack's HDFS, a site's Hadoop folder. */
    private Map<String, String> haSettings(Path base) throws IOException {
        Path conf = stack.hdfs().writeClientConfDir(base.resolve("hadoop-conf"));
        return Map.of(SupervisorConfig.HA_ENABLED, "true",
                SupervisorConfig.HA_LEASE, "2s",
                SupervisorConfig.HA_RENEW_INTERVAL, "200ms",
                SupervisorConfig.HA_STORE, "zookeeper",
                SupervisorConfig.HA_ZOOKEEPER_CONNECT, zk.connectString(),
                SupervisorConfig.JOURNAL_HDFS_DIR, stack.hdfs().uri() + HA_JOURNAL,
                SupervisorConfig.HADOOP_CONF_DIR, conf.toString());
    }

    private static Map<String, String> ha(Map<String, String> settings, String id) {
        Map<String, String> m = new HashMap<>(settings);
        m.put(SupervisorConfig.HA_ID, id);
        return m;
    }

    private void startActive(Map<String, String> ha, String id) throws IOException {
        Supervisor s = stack.startSupervisor(ha(ha, id), Clock.systemUTC());
        Await.until(id + " active", Duration.ofSeconds(60), () -> role(s) == Leadership.Role.ACTIVE);
    }

    private static Leadership.Role role(Supervisor s) {
        return s.leadership().map(Leadership::role).orElse(Leadership.Role.STANDBY);
    }

    /** The newest live (not sealed) generation directory of the journal on HDFS. */
    private static org.apache.hadoop.fs.Path newestGeneration(FileSystem fs, org.apache.hadoop.fs.Path journal)
            throws IOException {
        org.apache.hadoop.fs.Path newest = null;
        long highest = -1;
        for (FileStatus f : fs.listStatus(journal)) {
            String n = f.getPath().getName();
            if (f.isDirectory() && n.matches("generation-[0-9]+") && Long.parseLong(n.substring(11)) > highest) {
                highest = Long.parseLong(n.substring(11));
                newest = f.getPath();
            }
        }
        assertNotNull(newest, "a generation in " + journal);
        return newest;
    }

    private int rebuild(Path config, String... more) {
        List<String> args = new ArrayList<>(List.of("rebuild-state", "--config", config.toString(), "--hdfs-uri",
                stack.hdfs().uri().toString(), "--hdfs-root", stack.hdfsRoot()));
        args.addAll(List.of(more));
        return OperatorMain.run(args.toArray(String[]::new), new ByteArrayInputStream(new byte[0]),
                output.outStream(), output.errStream(), Map.of(SupervisorConfig.ENV_STOMP_PASSWORD,
                        stack.brokerLogins().password(BrokerLogins.SUPERVISOR)));
    }

    private Path writeConfig() throws IOException {
        return writeConfig(Map.of());
    }

    private Path writeConfig(Map<String, String> extra) throws IOException {
        Properties p = stack.supervisorSiteProperties(extra);
        Path file = work.resolve(extra.isEmpty() ? "supervisor.properties" : "supervisor-ha.properties");
        try (OutputStream o = Files.newOutputStream(file)) {
            p.store(o, "the stack's supervisor");
        }
        return file;
    }

    private S3Client s3() {
        return S3Client.builder().endpointOverride(stack.s3().endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(EmbeddedStack.S3_ACCESS_KEY, EmbeddedStack.S3_SECRET_KEY)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

}
