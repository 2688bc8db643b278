package org.eventindex.deploy;

import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyStatus;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.stomp.StompSender;
import org.eventindex.supervisor.CollectionState;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.supervisor.ResignalCommand;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The site's broker topology end to end: three independent brokers (each with its own store), the supervisor and
 * the consumer reading every one, and the producers given only the THIRD broker. Every dataset must end in Kudu.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class IndependentBrokersE2EIT {
    @TempDir
    static java.nio.file.Path work;

    private EmbeddedStack stack;
    private PipelineRun pipeline;
    private List<GeneratedDataset> datasets;

    @BeforeAll
    void runPipeline() throws Exception {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "alias_", 4, 1)
                .withBrokers(3), s -> { });
        pipeline = new PipelineRun(stack, java.nio.file.Path.of(System.getProperty("ei.producer.jar")), s -> { });
        datasets = pipeline.generate(List.of(
                new GeneratorSpec("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 4, 50, 1, 1, 0, 0,
                        false, 11L),
                new GeneratorSpec("data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831", 3, 40, 1, 0, 1, 0,
                        false, 12L)), work.resolve("spb"));
        pipeline.registerManifests(datasets);
        EmbeddedBroker third = stack.brokers().get(2);
        pipeline.runProducers(datasets, 2, stack.producerEndpoints(third));
        pipeline.awaitDone(datasets, Duration.ofMinutes(3));
    }

    @AfterAll
    void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void everyDatasetSentThroughTheThirdBrokerEndsInKudu() throws Exception {
        for (GeneratedDataset ds : datasets) {
            DatasetFigures f = pipeline.measure(ds);
            assertEquals(1, f.hdfsFiles(), ds.datasetName());
            assertEquals(ds.expectedUniqueEvents(), f.eventsInKudu(), "EVENTS rows of " + ds.datasetName());
            assertEquals(List.of(), f.problems());
        }
        // the producer messages were all on the third broker: the supervisor read them there
        for (EmbeddedBroker b : stack.brokers()) {
            assertEquals(0, b.queueSize(Queues.SUPERVISOR), b.stompEndpoints());
        }
    }

    @Test
    void theDaemonsAreSubscribedOnEveryBroker() {
        OpsHttpServer.Readiness supervisor = stack.supervisor().readiness();
        assertTrue(supervisor.ready(), supervisor.toString());
        assertEquals(stack.brokers().stream().map(b -> "broker " + b.stompEndpoints()).collect(Collectors.toSet()),
                supervisor.dependencies().stream().filter(DependencyStatus::up).map(DependencyStatus::name)
                        .collect(Collectors.toSet()));
        org.eventindex.consumer.Consumer consumer = stack.consumers().get(0);
        for (EmbeddedBroker b : stack.brokers()) {
            assertEquals(1.0, DaemonMetrics.value(stack.supervisor().metrics(), DaemonMetrics.BROKER_SUBSCRIBED,
                    "broker", b.stompEndpoints(), "queue", Queues.SUPERVISOR), b.stompEndpoints());
            assertEquals(1.0, DaemonMetrics.value(consumer.metrics().registry(), DaemonMetrics.BROKER_SUBSCRIBED,
                    "broker", b.stompEndpoints(), "queue", Queues.CONSUMER), b.stompEndpoints());
        }
    }

    /**
     * The same signal (same signalId) delivered twice, through whichever brokers the supervisor's sends took: the
     * consumer's second load finds the dataset loaded from that signal and leaves Kudu as it was.
     */
    @Test
    void aSignalDeliveredTwiceIsLoadedOnce() throws Exception {
        String name = datasets.get(0).datasetName();
        DatasetView before = stack.supervisor().dataset(name).orElseThrow();
        DatasetsRow rowBefore = stack.kuduQueries().dataset(name).orElseThrow();
        EventCounts countsBefore = stack.kuduQueries().countEvents(rowBefore.dspid(), rowBefore.rgid());
        org.eventindex.consumer.Consumer consumer = stack.consumers().get(0);
        double handledBefore = DaemonMetrics.value(consumer.metrics().registry(),
                org.eventindex.consumer.ConsumerMetrics.SIGNALS_HANDLED);
        // two operator requests, each through one of the first two brokers: two sends of the same signal (the
        // second once the first is sent: a dataset whose signal is being sent cannot be re-signalled)
        int requests = 0;
        for (EmbeddedBroker b : stack.brokers().subList(0, 2)) {
            try (StompSender sender = new StompSender(stack.brokerLogins().settings(b.stompEndpoints(),
                    BrokerLogins.OPERATOR))) {
                sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ResignalCommand.of(name)), Map.of());
            }
            int sent = ++requests;
            Await.until("re-signal " + sent + " sent", Duration.ofMinutes(1), () -> {
                DatasetView v = stack.supervisor().dataset(name).orElseThrow();
                return v.resignals() == sent && v.state() != CollectionState.SIGNAL_PLANNED;
            });
        }
        Await.until("both deliveries handled by the consumer", Duration.ofMinutes(2), () -> DaemonMetrics.value(
                consumer.metrics().registry(), org.eventindex.consumer.ConsumerMetrics.SIGNALS_HANDLED)
                == handledBefore + 2);
        Await.until("its reports recorded", Duration.ofMinutes(1), () -> stack.supervisor().dataset(name)
                .orElseThrow().state() == before.state());
        DatasetView after = stack.supervisor().dataset(name).orElseThrow();
        assertEquals(2, after.resignals());
        assertEquals(before.signalId(), after.signalId());
        assertEquals(rowBefore, stack.kuduQueries().dataset(name).orElseThrow(), "DATASETS row changed");
        assertEquals(countsBefore, stack.kuduQueries().countEvents(rowBefore.dspid(), rowBefore.rgid()));
        assertEquals(1, pipeline.measure(datasets.get(0)).hdfsFiles());
    }
}
