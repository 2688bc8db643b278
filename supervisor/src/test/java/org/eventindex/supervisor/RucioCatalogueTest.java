package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.eventindex.supervisor.Fixtures.BUCKET;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.NAME;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Rucio client against a local server speaking Rucio's auth and file-listing endpoints. */
class RucioCatalogueTest {
    private static final String G1 = "6A3B0000-0000-0000-0000-000000000001";
    private static final String G2 = "6A3B0000-0000-0000-0000-000000000002";
    private static final String G3 = "6A3B0000-0000-0000-0000-000000000003";

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private FakeRucio rucio;

    @BeforeEach
    void start() throws IOException {
        rucio = new FakeRucio();
    }

    @AfterEach
    void stop() {
        rucio.close();
    }

    private RucioCatalogue client(String password) {
        return new RucioCatalogue(new SupervisorConfig.CatalogueSettings(rucio.url(), FakeRucio.ACCOUNT,
                FakeRucio.USER, password, Duration.ofMinutes(5)), clock);
    }

    /** Rucio's own GUID spelling: lower case, no dashes. */
    private static String rucioGuid(String guid) {
        return guid.replace("-", "").toLowerCase(java.util.Locale.ROOT);
    }

    @Test
    void listsFilesWithGuidsInTheProducersFormAndEventCounts() throws IOException {
        rucio.dataset("data17_13TeV", DATASET, List.of(FakeRucio.file("AOD.1._000001.pool.root.1", rucioGuid(G1), 100L),
                FakeRucio.file("AOD.1._000002.pool.root.1", G2, null)));
        RucioCatalogue c = client(FakeRucio.PASSWORD);

        List<Catalogue.File> files = c.files(NAME).orElseThrow();

        assertEquals(List.of(new Catalogue.File("AOD.1._000001.pool.root.1", G1, 100, 1000),
                new Catalogue.File("AOD.1._000002.pool.root.1", G2, -1, 1000)), files);
        c.files(NAME);
        assertEquals(1, rucio.logins(), "the token is reused");
        rucio.arrayBodies(true);
        assertEquals(files, c.files(NAME).orElseThrow(), "a JSON array body is read the same");
    }

    @Test
    void rejectedTokenIsRenewedOnce() throws IOException {
        rucio.dataset("data17_13TeV", DATASET, List.of(FakeRucio.file("f1", G1, 5L)));
        RucioCatalogue c = client(FakeRucio.PASSWORD);
        c.files(NAME);
        rucio.expireAllTokens();

        assertEquals(1, c.files(NAME).orElseThrow().size());
        assertEquals(2, rucio.logins());
    }

    @Test
    void tokenPastItsExpiryIsRenewedBeforeUse() throws IOException {
        rucio.dataset("data17_13TeV", DATASET, List.of(FakeRucio.file("f1", G1, 5L)));
        rucio.tokenExpiry(clock.instant().plus(Duration.ofHours(2)));
        RucioCatalogue c = client(FakeRucio.PASSWORD);
        c.files(NAME);
        clock.advance(Duration.ofMinutes(100));
        c.files(NAME);
        assertEquals(1, rucio.logins(), "the token is valid for 2 h, as its expiry header says");
        clock.advance(Duration.ofMinutes(20));
        c.files(NAME);
        assertEquals(2, rucio.logins(), "renewed (a minute early) without waiting for a 401");
    }

    @Test
    void wrongPasswordFailsNamingTheAccount() {
        IOException e = assertThrows(IOException.class, () -> client("wrong").files(NAME));
        assertTrue(e.getMessage().contains(FakeRucio.ACCOUNT) && e.getMessage().contains("401"), e.getMessage());
    }

    @Test
    void unknownDatasetIsEmpty() throws IOException {
        assertEquals(Optional.empty(), client(FakeRucio.PASSWORD).files(NAME));
    }

    @Test
    void aFailingLookupDoesNotStopThePollOfOtherDatasets() throws IOException {
        String other = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
        PrometheusRegistry registry = new PrometheusRegistry();
        SupervisorMetrics metrics = new SupervisorMetrics(registry);
        SupervisorState state = new SupervisorState();
        List<ConsumerSignal> outbox = new ArrayList<>();
        try (Journal journal = Journal.open(dir, state::apply)) {
            SupervisorEngine engine = new SupervisorEngine(journal, state, new MessageValidator(BUCKET), outbox::add,
                    Quarantine.NONE, metrics, clock, new EpochPolicy(1, 1_000_000), new HandOffPolicy(
                    SupervisorEngineTest.HAND_OFF), 1 << 20, "/queue/p", "/queue/c");
            engine.onProducerMessage(producerMessage("m1", info(DATASET, url("a"), guid(G1, 0, 10))), "b1");
            engine.onProducerMessage(producerMessage("m2", info(other, url("b"), guid(G2, 0, 5))), "b2");
            Catalogue flaky = dataset -> {
                if (dataset.equals(NAME)) {
                    throw new IOException("Rucio answered 500 for dataset " + dataset);
                }
                return Optional.of(List.of(new Catalogue.File("f", G2, 5, 1)));
            };
            assertEquals(1, new CataloguePoller(flaky, engine, metrics).pollOnce());
            assertEquals(List.of(other), outbox.stream().map(ConsumerSignal::dataset).toList());
            assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_catalogue_failures_total"));
        }
    }

    @Test
    void pollerCompletesADatasetFromTheCatalogueAndSignalsAgainWhenFilesAreAdded() throws IOException {
        rucio.dataset("data17_13TeV", DATASET, List.of(FakeRucio.file("f1", rucioGuid(G1), 10L),
                FakeRucio.file("f2", rucioGuid(G2), 20L)));
        PrometheusRegistry registry = new PrometheusRegistry();
        SupervisorMetrics metrics = new SupervisorMetrics(registry);
        SupervisorState state = new SupervisorState();
        List<ConsumerSignal> outbox = new ArrayList<>();
        try (Journal journal = Journal.open(dir, state::apply)) {
            SupervisorEngine engine = new SupervisorEngine(journal, state, new MessageValidator(BUCKET), outbox::add,
                    Quarantine.NONE, metrics, clock, new EpochPolicy(1, 1_000_000), new HandOffPolicy(
                    SupervisorEngineTest.HAND_OFF), 1 << 20, "/queue/p", "/queue/c");
            CataloguePoller poller = new CataloguePoller(client(FakeRucio.PASSWORD), engine, metrics);
            engine.onProducerMessage(producerMessage("m1", info(DATASET, url("a"), guid(G1, 0, 10), guid(G2, 1, 20))),
                    "b1");
            assertEquals(CollectionState.COLLECTING, engine.dataset(DATASET).orElseThrow().state(), "no file list yet");

            assertEquals(1, poller.pollOnce());
            assertEquals(1, outbox.size());
            ConsumerSignal first = outbox.get(0);
            assertEquals(30, first.expectedEvents());
            assertEquals(0, poller.pollOnce(), "an unchanged list changes nothing");

            rucio.dataset("data17_13TeV", DATASET, List.of(FakeRucio.file("f2", rucioGuid(G2), 20L),
                    FakeRucio.file("f1", rucioGuid(G1), 10L), FakeRucio.file("f3", rucioGuid(G3), 5L)));
            assertEquals(1, poller.pollOnce());
            DatasetView v = engine.dataset(DATASET).orElseThrow();
            assertEquals(CollectionState.COLLECTING, v.state(), "not signalled until the added file has an object");
            assertEquals(List.of(G3), v.missingGuids());
            assertEquals(List.of(first.signalId()), v.supersededSignals());

            engine.onProducerMessage(producerMessage("m2", info(DATASET, url("b"), guid(G3, 0, 5))), "b2");
            ConsumerSignal second = outbox.get(1);
            assertEquals(35, second.expectedEvents());
            assertEquals(first.dspid(), second.dspid());
            assertEquals(List.of(url("a"), url("b")), second.objects().stream().map(SignalObject::url).toList());
            assertEquals(3, DaemonMetrics.value(registry, "eventindex_supervisor_catalogue_queries_total"));
        }
    }
}
