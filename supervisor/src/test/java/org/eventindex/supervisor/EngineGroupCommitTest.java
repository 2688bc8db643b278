package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.Json;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Producer messages handled by several threads at once, as the producer queue's subscriptions do (group commit,
 * decision 0035): every object is recorded once, each dataset is signalled once, every signal reaches the outbox only
 * once its entry is on disk, and a replay of the journal rebuilds the same state.
 */
class EngineGroupCommitTest {
    private static final int DATASETS = 6;
    private static final int FILES = 40;
    private static final int THREADS = 8;

    @TempDir
    Path dir;

    @Test
    void concurrentProducerMessagesAreRecordedOnceAndSignalledOnceAfterTheirFsync() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        SupervisorState state = new SupervisorState();
        ConcurrentLinkedQueue<ConsumerSignal> outbox = new ConcurrentLinkedQueue<>();
        Map<String, Long> plannedAt = new ConcurrentHashMap<>();
        List<String> signalledBeforeDurable = new CopyOnWriteArrayList<>();
        long forces;
        try (Journal journal = Journal.open(dir, state::apply)) {
            SupervisorEngine engine = new SupervisorEngine(journal, state, new MessageValidator(Fixtures.BUCKET),
                    s -> {
                        // the SIGNAL_PLANNED entry must be on disk before the signal reaches the outbox
                        if (journal.durableSeq() < plannedAt.get(s.dataset())) {
                            signalledBeforeDurable.add(s.dataset());
                        }
                        outbox.add(s);
                    }, Quarantine.NONE, new SupervisorMetrics(new PrometheusRegistry()), clock,
                    new EpochPolicy(1, 1_000_000_000L), new HandOffPolicy(SupervisorEngineTest.HAND_OFF), 1 << 20,
                    "/queue/p", "/queue/c");
            engine.listener(c -> {
                if ("SignalPlanned".equals(c.event())) {
                    plannedAt.put(c.dataset(), c.seq());
                }
            });
            List<byte[]> messages = new ArrayList<>();
            for (int d = 0; d < DATASETS; d++) {
                List<DatasetManifest.ManifestFile> files = new ArrayList<>();
                for (int f = 0; f < FILES; f++) {
                    files.add(file(guidOf(d, f), 10));
                }
                engine.onControlMessage(Json.write(new DatasetManifest(DatasetManifest.TYPE, name(d), files)), "c");
                for (int f = 0; f < FILES; f++) {
                    String job = "d" + d + "-f" + f;
                    byte[] m = producerMessage("m-" + job, info(name(d), url(job), guid(guidOf(d, f), 0, 10)));
                    messages.add(m);
                    if (f % 5 == 0) {
                        messages.add(m); // a re-sent message: recorded once
                    }
                }
            }
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Callable<Void>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int first = t;
                    workers.add(() -> {
                        for (int i = first; i < messages.size(); i += THREADS) {
                            engine.onProducerMessage(messages.get(i), "b-" + i);
                        }
                        return null;
                    });
                }
                for (Future<Void> f : pool.invokeAll(workers)) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            forces = journal.forces();
            int objects = engine.read(st -> st.all().stream().mapToInt(TrackedDataset::objectsReported).sum());
            assertEquals(DATASETS * FILES, objects, "every object once");
        }
        assertEquals(List.of(), signalledBeforeDurable, "signals handed to the outbox before their fsync");
        assertEquals(DATASETS, outbox.size(), "one signal per dataset: " + outbox);
        assertEquals(DATASETS, outbox.stream().map(ConsumerSignal::dataset).distinct().count());
        assertTrue(forces > 0, "forces: " + forces);

        SupervisorState replayed = new SupervisorState();
        Journal.open(dir, replayed::apply).close();
        for (int d = 0; d < DATASETS; d++) {
            TrackedDataset live = state.find(name(d)).orElseThrow();
            TrackedDataset again = replayed.find(name(d)).orElseThrow();
            assertEquals(live.signal, again.signal, name(d));
            assertEquals(FILES, again.objectsReported(), name(d));
            assertEquals(CollectionState.SIGNAL_PLANNED, again.state, name(d));
        }
    }

    private static String name(int d) {
        return String.format(Locale.ROOT, "data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 400_000 + d);
    }

    private static String guidOf(int d, int f) {
        return String.format(Locale.ROOT, "7B4C%04d-0000-0000-0000-%012d", d, f);
    }
}
