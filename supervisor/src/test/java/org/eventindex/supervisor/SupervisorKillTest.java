package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;
import org.eventindex.stomp.StompMessage;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisor as a child JVM, killed with SIGKILL at seeded random points of a multi-dataset run and restarted on
 * the same journal. The test is the producers (messages on the producer queue, some re-sent) and a fake consumer
 * (answers every signal with DONE). The broker lives in the test JVM and survives every kill.
 * <p>
 * Checkpoints are written every few entries, so kills also fall while one is written or the journal file changes.
 * At the end every dataset is DONE with exactly the expected selection and events, and every signal a dataset ever
 * got is the same signal (same signalId and content): a consumer (idempotent per signal) loads no row twice.
 */
class SupervisorKillTest {
    private static final long SEED = 20261122L;
    private static final int DATASETS = 8;
    private static final int KILLS = 7;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private EmbeddedBroker broker;
    private BrokerHarness mq;
    private Process child;
    private int httpPort;
    private final List<String> childLogs = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        if (child != null && child.isAlive()) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        if (mq != null) {
            mq.close();
        }
    }

    private static String name(int d) {
        return "data17_13TeV.0033000" + d + ".physics_Main.merge.AOD.f838_m1824";
    }

    private static String g(int d, int f) {
        return String.format("6A3B%04d-0000-0000-0000-%012d", d, f);
    }

    /** One dataset: 3 files; job1 stops midway in file 3, job2 retries file 3, job3 is a full duplicate. */
    private static List<byte[]> producerMessages(int d) {
        String ds = name(d);
        return List.of(
                producerMessage("d" + d + "-job1", info(ds, url("d" + d + "-job1"), guid(g(d, 1), 0, 100 + d),
                        guid(g(d, 2), 1, 200), guid(g(d, 3), 2, 7))),
                producerMessage("d" + d + "-job2", info(ds, url("d" + d + "-job2"), guid(g(d, 3), 0, 300))),
                producerMessage("d" + d + "-job3", info(ds, url("d" + d + "-job3"), guid(g(d, 1), 0, 100 + d),
                        guid(g(d, 2), 1, 200), guid(g(d, 3), 2, 300))));
    }

    private static DatasetManifest manifestOf(int d) {
        return manifest(name(d), file(g(d, 1), 100 + d), file(g(d, 2), 200), file(g(d, 3), 300));
    }

    @Test
    void killedAtRandomPointsAndRestartedEveryDatasetCompletesExactlyWithOneSignalContentPerDataset()
            throws Exception {
        mq = new BrokerHarness(dir.resolve("broker"));
        Map<String, List<ConsumerSignal>> signalsByDataset = new ConcurrentHashMap<>();
        List<StompMessage> received = new CopyOnWriteArrayList<>();
        mq.consume(Queues.CONSUMER, received, m -> {
            ConsumerSignal s = BrokerHarness.signal(m);
            signalsByDataset.computeIfAbsent(s.dataset(), k -> new CopyOnWriteArrayList<>()).add(s);
            mq.reportDone(s);
        });

        // Everything the producers and the catalogue send, in order; some producer messages are re-sent (same id).
        List<Map.Entry<String, byte[]>> traffic = new ArrayList<>();
        Random random = new Random(SEED);
        for (int d = 0; d < DATASETS; d++) {
            List<byte[]> msgs = producerMessages(d);
            for (byte[] m : msgs) {
                traffic.add(Map.entry(Queues.SUPERVISOR, m));
                if (random.nextInt(3) == 0) {
                    traffic.add(Map.entry(Queues.SUPERVISOR, m));
                }
            }
            traffic.add(Map.entry(Queues.SUPERVISOR_CONTROL, Json.write(manifestOf(d))));
        }

        Path journal = dir.resolve("journal");
        List<Long> killPoints = new ArrayList<>();
        int sent = 0;
        for (int round = 0; round < KILLS; round++) {
            startChild(round);
            int chunk = Math.min(traffic.size() - sent, (traffic.size() + KILLS - 1) / KILLS);
            for (int i = 0; i < chunk; i++, sent++) {
                mq.sender.send(traffic.get(sent).getKey(), traffic.get(sent).getValue(), Map.of());
            }
            long before = entries(journal);
            long target = before + 1 + random.nextInt(Math.max(1, chunk * 2));
            // Kill once the journal reached the random target, or once the child is idle with nothing left to do.
            Await.until("journal of round " + round + " reaching " + target + " lines", TIMEOUT,
                    () -> entries(journal) >= target || quiet(journal));
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "killed child did not exit");
            killPoints.add(entries(journal));
            assertEquals(137, child.exitValue(), "killed with SIGKILL");
        }
        for (; sent < traffic.size(); sent++) {
            mq.sender.send(traffic.get(sent).getKey(), traffic.get(sent).getValue(), Map.of());
        }
        startChild(KILLS);
        Await.until("every dataset DONE after " + KILLS + " kills (logs " + childLogs + ")", TIMEOUT,
                () -> allDone());

        for (int d = 0; d < DATASETS; d++) {
            String ds = name(d);
            JsonNode v = view(ds);
            assertEquals("DONE", v.get("state").asText(), ds);
            assertEquals(100 + d + 200 + 300, v.get("expectedEvents").asLong(), ds);
            assertEquals(3, v.get("objectsReported").asInt(), ds + ": re-sent messages are recorded once");
            List<SignalObject> expected = List.of(
                    new SignalObject(url("d" + d + "-job1"), 1000, 5000, List.of(g(d, 1), g(d, 2)), 100 + d + 200,
                            List.of(SignalFile.of(guid(g(d, 1), 0, 100 + d)), SignalFile.of(guid(g(d, 2), 1, 200)))),
                    new SignalObject(url("d" + d + "-job2"), 1000, 5000, List.of(g(d, 3)), 300,
                            List.of(SignalFile.of(guid(g(d, 3), 0, 300)))));
            List<ConsumerSignal> got = signalsByDataset.get(ds);
            assertFalse(got == null || got.isEmpty(), ds + " was never signalled");
            assertEquals(1, new HashSet<>(got).size(), ds + ": every signal must be the same one: " + got);
            assertEquals(expected, got.get(0).objects(), ds + ": exact selection");
            // job3 is a duplicate, or a late object when the manifest (control queue) overtook it: never read.
            List<String> neverRead = new ArrayList<>(text(v.get("duplicateObjects")));
            neverRead.addAll(text(v.get("lateObjects")));
            assertEquals(List.of(url("d" + d + "-job3")), neverRead, ds);
            // What an idempotent consumer loads: rows per (dataset, signalId) once; all signals are one signal.
            Set<String> rows = new HashSet<>();
            got.stream().map(ConsumerSignal::signalId).distinct().forEach(id -> got.get(0).objects()
                    .forEach(o -> o.guids().forEach(guid -> assertTrue(rows.add(guid), ds + ": GUID " + guid
                            + " loaded twice"))));
            assertEquals(Set.of(g(d, 1), g(d, 2), g(d, 3)), rows);
        }
        long finalEntries = entries(journal);
        assertTrue(killPoints.stream().filter(n -> n > 0 && n < finalEntries).distinct().count() >= 3,
                "kills must fall at different points of the run: " + killPoints + " of " + finalEntries + " entries");
        JsonNode replay = Json.tree(BrokerHarness.get(httpPort, "/supervisor").body()
                .getBytes(StandardCharsets.UTF_8)).path("supervisor").path("journal").path("replay");
        assertTrue(replay.path("checkpointSeq").asLong() > 0, "the last start restored a checkpoint: " + replay);
        Set<Integer> dspids = new HashSet<>();
        signalsByDataset.values().forEach(l -> dspids.add(l.get(0).dspid()));
        assertEquals(DATASETS, dspids.size(), "each dataset has its own dspid: " + dspids);
        assertEquals(0, mq.broker.queueSize(EmbeddedBroker.DLQ), "nothing dead-lettered");
    }

    private static List<String> text(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private void startChild(int round) throws IOException {
        httpPort = Ports.free();
        Map<String, String> p = SupervisorChild.properties(mq.broker.stompEndpoints(), dir.resolve("journal"),
                httpPort);
        // checkpoints every few entries, so that kills also land while one is written or the journal file changes
        p.put(SupervisorConfig.JOURNAL_CHECKPOINT_ENTRIES, "4");
        // one producer subscription: the exact selection below assumes the broker's order (job1 before its full
        // duplicate job3); the producer path still writes, then waits for the fsync (decision 0035). ChaosIT kills
        // the supervisor with the default group commit.
        p.put(SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX, "1");
        Path log = dir.resolve("supervisor-" + round + ".log");
        childLogs.add(log.toString());
        child = SupervisorChild.start(dir.resolve("supervisor-" + round + ".properties"), p, log);
    }

    /**
     * Entries the journal holds: the sequence number of the journal file's last complete line, else of the
     * checkpoint's trailer (the journal file is empty right after a checkpoint), else 0.
     */
    private static long entries(Path journalDir) {
        long seq = lastSeq(journalDir.resolve(Journal.FILE_NAME));
        return seq > 0 ? seq : lastSeq(journalDir.resolve("supervisor.checkpoint"));
    }

    private static long lastSeq(Path file) {
        try {
            byte[] b = Files.readAllBytes(file);
            int end = b.length;
            while (end > 0 && b[end - 1] != '\n') {
                end--; // a torn last line
            }
            if (end == 0) {
                return 0;
            }
            int start = end - 1;
            while (start > 0 && b[start - 1] != '\n') {
                start--;
            }
            return Json.tree(java.util.Arrays.copyOfRange(b, start, end)).path("seq").asLong();
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private final Map<Path, long[]> lastSeen = new LinkedHashMap<>();

    /** True when the child answers HTTP, both queues are drained and the journal did not grow since last asked. */
    private boolean quiet(Path journal) {
        long n = entries(journal);
        long[] prev = lastSeen.put(journal, new long[] {n});
        return prev != null && prev[0] == n && mq.broker.queueSize(Queues.SUPERVISOR) == 0
                && mq.broker.queueSize(Queues.SUPERVISOR_CONTROL) == 0 && mq.broker.queueSize(Queues.CONSUMER) == 0
                && ready();
    }

    private boolean ready() {
        try {
            return BrokerHarness.get(httpPort, "/ready").statusCode() == 200;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private boolean allDone() {
        for (int d = 0; d < DATASETS; d++) {
            try {
                if (!"DONE".equals(view(name(d)).path("state").asText())) {
                    return false;
                }
            } catch (IOException | InterruptedException | AssertionError e) {
                return false;
            }
        }
        return true;
    }

    private JsonNode view(String dataset) throws IOException, InterruptedException {
        HttpResponse<String> r = BrokerHarness.get(httpPort, "/datasets/" + dataset);
        if (r.statusCode() != 200) {
            throw new AssertionError("/datasets/" + dataset + " answered " + r.statusCode());
        }
        return Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
    }
}
