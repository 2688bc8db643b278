package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.fs.FileStatus;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.EventSize;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompSender;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Runs chaos rounds against a {@link ChaosCluster}: each round generates datasets, registers their manifests, runs
 * their producers as processes while it injects the round's faults (seeded), lifts them, drains (waits until the
 * supervisor has every dataset DONE) and checks the round with the {@link ChaosChecker}. A seed fixes the datasets,
 * the fault schedule and every random choice of the injector.
 */
final class ChaosRunner {
    static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(4);
    static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(2);

    private final ChaosCluster cluster;
    private final Path producerJar;
    private final Random random;
    private final Consumer<String> log;
    private final FaultInjector injector;
    private final List<ExpectedEvents> allDatasets = new ArrayList<>();
    private final List<ProducerFleet.Job> allJobs = new ArrayList<>();
    private final FaultDeck deck;
    private final BrokerQueues brokerQueues;
    private int datasetCounter;

    ChaosRunner(ChaosCluster cluster, Path producerJar, long seed, Consumer<String> log) {
        this.cluster = Objects.requireNonNull(cluster, "cluster is null");
        this.producerJar = Objects.requireNonNull(producerJar, "producerJar is null");
        this.random = new Random(seed);
        this.log = Objects.requireNonNull(log, "log is null");
        this.injector = new FaultInjector(cluster, log);
        this.deck = new FaultDeck(random);
        this.brokerQueues = new BrokerQueues(cluster.brokers().proxies().stream().map(p -> p.endpoint()).toList(),
                BrokerQueues.DRAINED, endpoint -> cluster.brokerSettingsOf(endpoint, BrokerLogins.ADMIN));
    }

    /** What one round did and found. */
    record RoundReport(int round, List<FaultInjector.Injected> faults, List<String> skipped, int datasets,
                       long producerRuns, CheckResult check, Duration duration) {
    }

    /** The faults this cluster can inject (disk faults need tmpfs mounts). */
    List<Fault> availableFaults() {
        return java.util.Arrays.stream(Fault.values())
                .filter(f -> !f.needsDisk() || cluster.diskFaultsUnavailable() == null).toList();
    }

    /** Draws {@code n} faults from the seeded schedule among the available ones. */
    List<Fault> drawFaults(int n) {
        return drawFaults(n, java.util.Set.of());
    }

    /**
     * Draws {@code n} faults among the available ones of {@code only} (every available one when empty), from the
     * run's {@link FaultDeck}: every kind once before any comes again.
     */
    List<Fault> drawFaults(int n, java.util.Set<Fault> only) {
        List<Fault> available = availableFaults().stream().filter(f -> only.isEmpty() || only.contains(f)).toList();
        if (available.isEmpty() && n > 0) {
            throw new IllegalArgumentException("none of the faults " + only + " can be injected here: "
                    + cluster.diskFaultsUnavailable());
        }
        return deck.draw(n, available);
    }

    /** Runs one round with the given faults over {@code datasets} new datasets. */
    RoundReport round(int index, List<Fault> faults, int datasets) throws Exception {
        long t0 = System.nanoTime();
        List<String> skipped = new ArrayList<>();
        List<GeneratedDataset> generated = new ArrayList<>();
        boolean multipart = faults.stream().anyMatch(Fault::needsMultipartFile);
        for (int i = 0; i < datasets; i++) {
            // the first dataset of a round with a multipart fault: one job whose file is uploaded in parts
            GeneratorSpec spec = multipart && i == 0 ? multipartSpec(datasetCounter++) : spec(datasetCounter++);
            generated.add(new DatasetGenerator(spec)
                    .generate(cluster.work().resolve("spb").resolve("round-" + index).resolve("ds-" + i)));
        }
        List<ExpectedEvents> expected = new ArrayList<>();
        List<ProducerFleet.Work> work = new ArrayList<>();
        for (GeneratedDataset ds : generated) {
            expected.add(ExpectedEvents.of(ds));
            ds.jobs(GeneratedJob.Outcome.REPORTED).forEach(j -> work.add(new ProducerFleet.Work(ds.datasetName(),
                    j.spbFile())));
        }
        registerManifests(generated);
        log.accept(String.format("round %d: %d datasets, %d producer jobs, %d unique events; faults %s", index,
                datasets, work.size(), expected.stream().mapToLong(e -> e.unique().size()).sum(), faults));

        ProducerFleet fleet = new ProducerFleet(producerJar, cluster.producerEndpoints(),
                cluster.work().resolve("logs").resolve("producers"));
        // The producers start once a fault that must strike before them is in place (or right away).
        CompletableFuture<Void> go = new CompletableFuture<>();
        CompletableFuture<List<ProducerFleet.Job>> producers = go.thenApplyAsync(ready -> {
            try {
                return fleet.runAll(work, 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("producers interrupted", e);
            }
        });
        List<FaultInjector.Injected> injected = new ArrayList<>();
        // A fault that strikes before the producers goes first in a round of several (a stable reordering).
        List<Fault> inOrder = faults.stream()
                .sorted(Comparator.comparing(f -> f.strike() != Fault.Strike.BEFORE_PRODUCERS)).toList();
        try {
            for (Fault f : inOrder) {
                if (f.needsDisk() && cluster.diskFaultsUnavailable() != null) {
                    skipped.add(f + ": " + cluster.diskFaultsUnavailable());
                    log.accept("  skip " + f + ": " + cluster.diskFaultsUnavailable());
                    continue;
                }
                // When, during the producers' run, the fault strikes (drawn for every fault not tied to a consumer,
                // so that a seed keeps naming the same schedule).
                Duration delay = f.whileConsuming() ? Duration.ZERO : Duration.ofMillis(random.nextInt(1500));
                if (f.strike() != Fault.Strike.BEFORE_PRODUCERS || go.isDone()) {
                    go.complete(null);
                    ChaosWait.hold(delay);
                }
                FaultInjector.Injected i = injector.run(f, random, () -> go.complete(null));
                log.accept("  lifted " + i);
                injected.add(i);
            }
        } finally {
            go.complete(null);
        }
        List<ProducerFleet.Job> jobs = producers.get();
        long runs = jobs.stream().mapToLong(j -> j.exitCodes().size()).sum();
        log.accept("  producers done: " + jobs.stream().filter(ProducerFleet.Job::succeeded).count() + "/"
                + jobs.size() + " acknowledged in " + runs + " runs");
        drain(expected, jobs);
        CheckResult check = checker().check(expected, jobs);
        List<Violation> violations = new ArrayList<>(check.violations());
        cluster.deadDaemons().forEach(d -> violations.add(new Violation(Violation.Kind.DAEMON_DIED, "", d)));
        brokerQueues.unread().forEach((where, n) -> violations.add(new Violation(Violation.Kind.UNREAD_ON_BROKER, "",
                where + (n < 0 ? ": could not be browsed" : " holds " + n + " message(s) after the drain"))));
        check = new CheckResult(check.datasets(), check.expectedEvents(), check.eventsFound(), check.lost(),
                check.extra(), violations);
        allDatasets.addAll(expected);
        allJobs.addAll(jobs);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        log.accept(String.format("round %d checked in %d s: %d datasets, %d events expected, %d in Kudu, lost %d,"
                        + " extra %d, violations %d%s", index, took.toSeconds(), check.datasets(),
                check.expectedEvents(), check.eventsFound(), check.lost(), check.extra(), check.violations().size(),
                check.ok() ? "" : "\n    " + String.join("\n    ", check.violations().stream()
                        .map(Violation::toString).toList())));
        return new RoundReport(index, injected, skipped, datasets, runs, check, took);
    }

    /** Which ZooKeeper server the next {@link Fault#ZK_MINORITY} isolates. */
    void zooKeeperTarget(FaultInjector.ZooKeeperTarget target) {
        injector.zooKeeperTarget(target);
    }

    /** The partitions healed so far, with the time each took to recover. */
    List<FaultInjector.PartitionHeal> heals() {
        return injector.heals();
    }

    /** The supervisor takeovers measured so far. */
    List<FaultInjector.Takeover> takeovers() {
        return injector.takeovers();
    }

    /** The broker outages measured so far. */
    List<BrokerOutage> brokerOutages() {
        return injector.brokerOutages();
    }

    /** Every dataset checked so far, in round order. */
    List<ExpectedEvents> datasets() {
        return List.copyOf(allDatasets);
    }

    /** Every producer job run so far. */
    List<ProducerFleet.Job> jobs() {
        return List.copyOf(allJobs);
    }

    /** Checks every dataset of every round again (a later fault must not have damaged an earlier dataset). */
    CheckResult finalCheck() throws IOException {
        return checker().check(allDatasets, allJobs);
    }

    ChaosChecker checker() throws IOException {
        return new ChaosChecker(cluster.kudu().client(), cluster.tables(), cluster.hdfs().fs(),
                ChaosCluster.HDFS_ROOT, this::supervisorView);
    }

    Optional<JsonNode> supervisorView(String dataset) {
        return cluster.get(cluster.supervisor(), "/datasets/"
                        + URLEncoder.encode(dataset, StandardCharsets.UTF_8))
                .filter(r -> r.statusCode() == 200).map(r -> {
                    try {
                        return Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        throw new IllegalStateException("the supervisor's view of " + dataset + " is not JSON", e);
                    }
                });
    }

    /**
     * Waits until the supervisor has every dataset DONE, then until the cluster is quiet: the supervisor has recorded
     * every producer message the broker acknowledged, no consumer has a dataset in flight and no dataset of the round
     * has a temporary file. A dataset can be DONE while a retried job's message still waits in the broker (redelivered
     * after a connection reset; it is then recorded as a late object). A DONE dataset can still be in the hands of a
     * second consumer (a signal redelivered after a broker reset) whose attempt holds a temp file until it ends; what
     * the checker then finds is left for good. On timeout the checker reports what is not there.
     */
    private void drain(List<ExpectedEvents> expected, List<ProducerFleet.Job> jobs) {
        try {
            ChaosWait.until("every dataset of the round DONE", DRAIN_TIMEOUT, () -> expected.stream()
                    .allMatch(e -> supervisorView(e.dataset()).map(v -> "DONE".equals(v.path("state").asText()))
                            .orElse(false)));
            ChaosWait.until("every acknowledged producer message recorded", SETTLE_TIMEOUT, () -> jobs.stream()
                    .filter(ProducerFleet.Job::succeeded).allMatch(j -> ChaosChecker.recordedObjects(
                            supervisorView(j.dataset())).contains(j.acknowledgedUrl())));
            ChaosWait.until("consumers idle and no temporary files", SETTLE_TIMEOUT, () ->
                    cluster.consumers().stream().noneMatch(cluster::consumerBusy) && noTempFiles(expected));
            ChaosWait.until("every broker's queues read (" + BrokerQueues.DRAINED + ")", SETTLE_TIMEOUT,
                    () -> brokerQueues.unread().isEmpty());
        } catch (IllegalStateException timedOut) {
            log.accept("  drain: " + timedOut.getMessage());
        }
    }

    private boolean noTempFiles(List<ExpectedEvents> expected) {
        for (ExpectedEvents e : expected) {
            try {
                for (FileStatus st : ChaosChecker.list(cluster.hdfs().fs(),
                        ChaosChecker.containerDir(ChaosCluster.HDFS_ROOT, e.dataset()))) {
                    if (ChaosChecker.isTempFile(st.getPath().getName(), e.dataset())) {
                        return false;
                    }
                }
            } catch (IOException unreadable) {
                return false; // HDFS not answering: not quiet yet
            }
        }
        return true;
    }

    private void registerManifests(List<GeneratedDataset> datasets) throws IOException {
        // Manifests are an operator's messages: the operator login may send to the supervisor's control queue.
        try (StompSender sender = new StompSender(cluster.brokerSettings(BrokerLogins.OPERATOR))) {
            for (GeneratedDataset ds : datasets) {
                sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ds.manifestMessage()), Map.of());
            }
        }
    }

    /** Events in {@link #multipartSpec}'s one file: about 119 bytes each, 8.5 MiB, two parts of 8 MiB at most. */
    static final int MULTIPART_EVENTS = 75_000;

    /**
     * A dataset of one file indexed by one job whose SPB file (about 8.5 MiB) is above the producer's multipart
     * threshold ({@code UploadSettings.DEFAULT}: 8 MiB), so that it is uploaded in two parts; no retried or crashed job
     * (one upload to cut in the middle).
     */
    private GeneratorSpec multipartSpec(int n) {
        String name = String.format("data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 410000 + n);
        // HEAVY: ~119 bytes an event as the count above assumes (the seed's sizes would make a 3 MB single PUT)
        return new GeneratorSpec(name, 1, MULTIPART_EVENTS, 1, 0, 0, 0, false, random.nextLong())
                .withEventSize(EventSize.HEAVY);
    }

    /** A small realistic dataset: retried and crashed jobs, events duplicated across files; every third is MC. */
    private GeneratorSpec spec(int n) {
        boolean mc = n % 3 == 2;
        String name = mc
                ? String.format("mc16_13TeV.%06d.PowhegPythia8EvtGen_Zmumu.merge.AOD.e3601_s3126_r10201", 361000 + n)
                : String.format("data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 410000 + n);
        int files = 3 + random.nextInt(4);
        int perJob = 1 + random.nextInt(2);
        int jobs = (files + perJob - 1) / perJob;
        return new GeneratorSpec(name, files, 150 + random.nextInt(250), perJob, Math.min(1, jobs),
                Math.min(1, jobs), 2 + random.nextInt(4), mc, random.nextLong());
    }
}
