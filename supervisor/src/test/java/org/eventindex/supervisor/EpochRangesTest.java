package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Queues;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.stomp.StompMessage;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Epoch rollover on a real broker with a hand-written cluster fake: the range of an epoch exists before any signal
 * naming it reaches a consumer, and a cluster that refuses (Kudu down) holds that signal back until it works.
 */
class EpochRangesTest {
    @TempDir
    Path dir;

    private BrokerHarness mq;
    private Supervisor supervisor;

    @AfterEach
    void stop() {
        if (supervisor != null) {
            supervisor.stop();
        }
        if (mq != null) {
            mq.close();
        }
    }

    /** A cluster whose ranges are a set; the first attempt at each new epoch above 1 fails. */
    private static final class FakeCluster implements EpochRanges {
        final Set<Integer> ranges = ConcurrentHashMap.newKeySet();
        final AtomicInteger failures = new AtomicInteger();

        @Override
        public void ensure(int epoch) throws IOException {
            if (epoch > 1 && !ranges.contains(epoch) && failures.getAndIncrement() % 2 == 0) {
                throw new IOException("tablet servers unavailable");
            }
            ranges.add(epoch);
        }
    }

    @Test
    void rangeExistsBeforeAConsumerSeesTheSignalAndANewEpochOpensWhenTheCurrentOneIsFull() throws Exception {
        mq = new BrokerHarness(dir.resolve("broker"));
        FakeCluster cluster = new FakeCluster();
        Properties p = mq.supervisorProperties(dir.resolve("journal"));
        p.setProperty(SupervisorConfig.KUDU_EPOCH_MAX_EVENTS, "100");
        p.setProperty(SupervisorConfig.KUDU_MASTERS, "kudu-fake:7051");
        supervisor = new Supervisor(SupervisorConfig.fromProperties(p, Map.of()), Clock.systemUTC(), e -> {
            assertEquals("kudu-fake:7051", e.kuduMasters());
            return cluster;
        }, JournalDiskGuard.FreeSpace.of(dir));
        supervisor.start();
        Await.until("ready", BrokerHarness.TIMEOUT, () -> supervisor.readiness().ready());
        List<String> problems = new CopyOnWriteArrayList<>();
        List<StompMessage> signals = new CopyOnWriteArrayList<>();
        mq.consume(Queues.CONSUMER, signals, m -> {
            ConsumerSignal s = BrokerHarness.signal(m);
            if (!cluster.ranges.contains(s.epoch())) {
                problems.add(s.dataset() + " signalled into epoch " + s.epoch() + " before its range existed");
            }
        });

        long[] events = {70, 30, 50, 60};
        for (int i = 0; i < events.length; i++) {
            String name = "data18_13TeV.0035000" + i + ".physics_Main.merge.AOD.f900_m2000";
            mq.control(manifest(name, file("G" + i, events[i])));
            mq.send(Queues.SUPERVISOR, producerMessage("m" + i, info(name, url("o" + i), guid("G" + i, 0, events[i]))));
            int n = i + 1;
            Await.until("signal " + n, BrokerHarness.TIMEOUT, () -> signals.size() >= n);
        }
        List<Integer> epochs = signals.stream().map(m -> BrokerHarness.signal(m).epoch()).toList();
        assertEquals(List.of(1, 1, 2, 3), epochs, "70+30 fill epoch 1; 50 opens 2; 50+60 > 100 opens 3");
        assertEquals(List.of(), problems);
        assertTrue(cluster.failures.get() >= 2, "the refused attempts were retried");
        assertTrue(DaemonMetrics.value(supervisor.metrics(), "eventindex_supervisor_epoch_range_failures_total") >= 2);
    }
}
