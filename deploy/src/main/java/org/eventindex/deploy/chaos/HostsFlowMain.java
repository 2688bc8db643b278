package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.consumer.ConsumerMetrics;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompSender;
import org.eventindex.testing.MetricsText;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The driver of a flow on hosts, run on the {@code control} host of a {@link HostNetwork} that another process made
 * (the test JVM, in the machine's own namespace, cannot reach the hosts' addresses; this process can, and starts every
 * role with {@code ip netns exec} on its host): starts a {@link HostsCluster}, runs a round of two small datasets from
 * producers to Kudu, then a second round during which the consumer's host is cut from the brokers' hosts until every
 * dataset of the round is signalled, then healed, then a third round in which one broker is isolated while it holds
 * every producer message of the round, and healed, then two rounds in which the consumer's host is cut from HDFS's,
 * then from Kudu's, while it has a dataset in flight; checks each round with the {@link ChaosChecker} (every event
 * once, nothing lost, nothing twice, every message accounted for, one HDFS file per dataset) and that no broker holds
 * a message of the flow after it, and writes a JSON report. Exit 0 when every round is
 * clean, 1 when a check found a violation.
 */
@Command(name = "hosts-flow", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Runs the system with each role on its own host (network namespace), a flow without and with a"
                + " partition of a consumer from the brokers, HDFS and Kudu and of a broker, and checks it; started on the"
                + " control host by"
                + " HostsFlowIT.")
public final class HostsFlowMain implements Callable<Integer> {
    /** A probe during the cut must time out; after the heal it returns at the answer. */
    private static final Duration SILENCE = Duration.ofSeconds(2);
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final Duration DONE_TIMEOUT = Duration.ofMinutes(3);
    /** How long a cut from a service holds once the consumer has a dataset in flight. */
    private static final Duration HOLD = Duration.ofSeconds(3);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    @Option(names = "--network", required = true, description = "the host network, as HostNetwork.describe() gives it")
    private String network;
    @Option(names = "--work", required = true, description = "the work folder (logs, data, secrets)")
    private Path work;
    @Option(names = "--producer-jar", required = true, description = "the producer jar")
    private Path producerJar;
    @Option(names = "--report", required = true, description = "where the JSON report is written")
    private Path reportFile;

    private HostsFlowMain() {
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new HostsFlowMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        HostNetwork net = HostNetwork.attach(network);
        ObjectNode report = Json.mapper().createObjectNode();
        long t0 = System.nanoTime();
        try (HostsCluster cluster = HostsCluster.start(work, net, "hosts_", this::log)) {
            report.put("startSeconds", seconds(t0));
            ObjectNode placement = report.putObject("placement");
            for (Map.Entry<ChildProcess, Host> e : cluster.placement().entrySet()) {
                placement.putObject(e.getKey().name()).put("host", e.getValue().name())
                        .put("address", e.getValue().address())
                        .put("namespace", namespaceOf(e.getKey().pid()));
            }
            ArrayNode rounds = report.putArray("rounds");
            boolean ok = round(cluster, net, rounds.addObject(), 1, Partition.NONE);
            ok &= round(cluster, net, rounds.addObject(), 2, Partition.CONSUMER_CUT);
            ok &= round(cluster, net, rounds.addObject(), 3, Partition.BROKER_ISOLATED);
            ok &= round(cluster, net, rounds.addObject(), 4, Partition.CONSUMER_CUT_FROM_HDFS);
            ok &= round(cluster, net, rounds.addObject(), 5, Partition.CONSUMER_CUT_FROM_KUDU);
            report.put("seconds", seconds(t0));
            write(report);
            return ok ? 0 : 1;
        } catch (Exception e) {
            report.put("error", e.toString());
            write(report);
            throw e;
        } finally {
            net.healAll();
        }
    }

    /** The partition of a round. */
    enum Partition {
        NONE("none"),
        /**
         * The consumer's host cut from every broker's before the manifests are registered, healed once every dataset
         * of the round is signalled (the consumer cannot have taken one).
         */
        CONSUMER_CUT("consumer cut from the brokers"),
        /**
         * The supervisor's and the consumer's hosts cut from the second broker's; the round's producers know only that
         * broker, so it stores every producer message of the round and delivers none; then the broker is isolated
         * from every host, and once a connect to it from the supervisor's host timed out, everything is healed: the
         * supervisor must then read what the broker held.
         */
        BROKER_ISOLATED("broker2 isolated holding the round's producer messages"),
        /**
         * The consumer's host cut from HDFS's before the manifests are registered; once the consumer has a dataset of
         * the round in flight (its {@code /status}), the cut holds {@link #HOLD}, then heals. The dataset's HDFS work
         * (the temp file, its blocks, the rename that commits it) stalls on the silent network and carries on, or is
         * retried, after the heal.
         */
        CONSUMER_CUT_FROM_HDFS("consumer cut from HDFS with a dataset in flight"),
        /**
         * The consumer's host cut from Kudu's (master and tablet server) the same way: the consumer consolidates the
         * dataset into HDFS, then its load into Kudu stalls until the heal.
         */
        CONSUMER_CUT_FROM_KUDU("consumer cut from Kudu with a dataset in flight");

        final String description;

        Partition(String description) {
            this.description = description;
        }
    }

    /** One round of two datasets under {@code partition}. */
    private boolean round(HostsCluster cluster, HostNetwork net, ObjectNode r, int index, Partition partition)
            throws Exception {
        long t0 = System.nanoTime();
        boolean cut = partition == Partition.CONSUMER_CUT;
        r.put("round", index).put("partition", partition.description);
        List<GeneratedDataset> generated = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            generated.add(new DatasetGenerator(spec(index * 10 + i))
                    .generate(work.resolve("spb").resolve("round-" + index).resolve("ds-" + i)));
        }
        List<ExpectedEvents> expected = new ArrayList<>();
        List<ProducerFleet.Work> jobs = new ArrayList<>();
        for (GeneratedDataset ds : generated) {
            expected.add(ExpectedEvents.of(ds));
            ds.jobs(GeneratedJob.Outcome.REPORTED).forEach(j -> jobs.add(new ProducerFleet.Work(ds.datasetName(),
                    j.spbFile())));
        }
        Host consumer = cluster.host("consumer");
        Host supervisor = cluster.host("supervisor");
        List<Host> brokers = HostsCluster.BROKER_HOSTS.stream().map(cluster::host).toList();
        Host holder = brokers.get(1);
        long cutAt = System.nanoTime();
        if (cut) {
            brokers.forEach(b -> net.cut(consumer, b));
            r.put("probeDuringCut", consumer.probe(brokers.get(0).address(), cluster.brokerPort(), SILENCE).name());
            log("round " + index + ": " + net.partitions());
        }
        if (partition == Partition.BROKER_ISOLATED) {
            net.cut(supervisor, holder);
            net.cut(consumer, holder);
            log("round " + index + ": " + net.partitions());
        }
        ServiceCut serviceCut = ServiceCut.of(partition, cluster);
        double failedBefore = signalsFailed(cluster);
        if (serviceCut != null) {
            net.cut(consumer, serviceCut.host());
            r.put("probeDuringCut", consumer.probe(serviceCut.host().address(), serviceCut.port(), SILENCE).name());
            log("round " + index + ": " + net.partitions());
        }

        try (StompSender sender = new StompSender(cluster.brokerSettings(BrokerLogins.OPERATOR))) {
            for (GeneratedDataset ds : generated) {
                sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ds.manifestMessage()), Map.of());
            }
        }
        List<ProducerFleet.Job> done = new ProducerFleet(producerJar, partition == Partition.BROKER_ISOLATED
                ? cluster.producerEndpoints(holder.endpoint(cluster.brokerPort())) : cluster.producerEndpoints(),
                work.resolve("logs").resolve("producers"), cluster.host("producer")).runAll(jobs, 3);
        r.put("producerJobs", done.size());
        r.put("acknowledged", done.stream().filter(ProducerFleet.Job::succeeded).count());
        if (partition == Partition.BROKER_ISOLATED) {
            // Every message of the round is on the holder, which the supervisor cannot reach: none is recorded.
            r.put("recordedBeforeHeal", done.stream().filter(ProducerFleet.Job::succeeded).filter(j -> ChaosChecker
                    .recordedObjects(cluster.supervisorView(j.dataset())).contains(j.acknowledgedUrl())).count());
            net.isolate(holder);
            r.put("probeWhileIsolated", supervisor.probe(holder.address(), cluster.brokerPort(), SILENCE).name());
            log("round " + index + ": " + net.partitions());
            net.healAll();
            r.put("isolatedSeconds", seconds(cutAt));
            r.put("probeAfterHeal", supervisor.probe(holder.address(), cluster.brokerPort(), ANSWER).name());
            log("round " + index + ": healed after " + r.get("isolatedSeconds") + " s");
        }
        if (cut) {
            ChaosWait.until("every dataset of round " + index + " signalled while the consumer is cut off",
                    DONE_TIMEOUT, () -> expected.stream().allMatch(e -> "SIGNALLED".equals(state(cluster, e))));
            r.put("doneDuringCut", expected.stream().filter(e -> "DONE".equals(state(cluster, e))).count());
            brokers.forEach(b -> net.heal(consumer, b));
            r.put("cutSeconds", seconds(cutAt));
            r.put("probeAfterHeal", consumer.probe(brokers.get(0).address(), cluster.brokerPort(), ANSWER).name());
            log("round " + index + ": healed after " + r.get("cutSeconds") + " s");
        }
        if (serviceCut != null) {
            holdWhileInFlight(cluster, r, expected);
            net.heal(consumer, serviceCut.host());
            r.put("cutSeconds", seconds(cutAt));
            r.put("probeAfterHeal", consumer.probe(serviceCut.host().address(), serviceCut.port(), ANSWER).name());
            log("round " + index + ": healed after " + r.get("cutSeconds") + " s");
        }
        long healedAt = System.nanoTime();
        ChaosWait.until("every dataset of round " + index + " DONE", DONE_TIMEOUT,
                () -> expected.stream().allMatch(e -> "DONE".equals(state(cluster, e))));
        if (partition != Partition.NONE) {
            r.put("doneSecondsAfterHeal", seconds(healedAt));
        }
        ChaosWait.until("every acknowledged producer message recorded", DONE_TIMEOUT, () -> done.stream()
                .filter(ProducerFleet.Job::succeeded).allMatch(j -> ChaosChecker.recordedObjects(
                        cluster.supervisorView(j.dataset())).contains(j.acknowledgedUrl())));
        if (partition != Partition.NONE) {
            // what the consumer's failure path did: a signal that failed (retried by the supervisor) counts here
            r.put("signalsFailed", signalsFailed(cluster) - failedBefore);
        }
        BrokerQueues queues = cluster.brokerQueues();
        try {
            ChaosWait.until("the consumer idle", SETTLE_TIMEOUT, () -> cluster.consumerStatus()
                    .map(s -> s.path("inFlight").isNull() || s.path("inFlight").isMissingNode()).orElse(false));
            ChaosWait.until("every broker's queues read (" + BrokerQueues.DRAINED + ")", SETTLE_TIMEOUT,
                    () -> queues.unread().isEmpty());
        } catch (IllegalStateException timedOut) {
            log("round " + index + ": " + timedOut.getMessage());
        }
        CheckResult check = cluster.checker().check(expected, done);
        List<String> violations = new ArrayList<>(check.violations().stream().map(Violation::toString).toList());
        cluster.deadDaemons().forEach(d -> violations.add("daemon died: " + d));
        queues.unread().forEach((where, n) -> violations.add(Violation.Kind.UNREAD_ON_BROKER + " " + where
                + (n < 0 ? ": could not be browsed" : " holds " + n + " message(s) after the round")));
        r.put("datasets", check.datasets()).put("expectedEvents", check.expectedEvents())
                .put("eventsFound", check.eventsFound()).put("lost", check.lost()).put("extra", check.extra())
                .put("seconds", seconds(t0));
        ArrayNode found = r.putArray("violations");
        violations.forEach(found::add);
        log("round " + index + ": " + r);
        return violations.isEmpty();
    }

    /**
     * Waits until the consumer has a dataset of the round in flight (it took the signal while cut), holds the cut
     * {@link #HOLD}, and reports the dataset, its progress at both ends of the hold (unchanged: the consumer waits on
     * the silent network) and how many datasets were DONE during the cut (none may be).
     */
    private void holdWhileInFlight(HostsCluster cluster, ObjectNode r, List<ExpectedEvents> expected) {
        List<String> names = expected.stream().map(ExpectedEvents::dataset).toList();
        ChaosWait.until("a dataset of the round in flight at the consumer while it is cut off", DONE_TIMEOUT,
                () -> inFlight(cluster).map(f -> names.contains(f.path("dataset").asText())).orElse(false));
        JsonNode first = inFlight(cluster).orElseThrow();
        ChaosWait.hold(HOLD);
        JsonNode last = inFlight(cluster).orElse(Json.mapper().nullNode());
        r.put("inFlightDuringCut", first.path("dataset").asText())
                .put("progressAtHoldStart", first.path("progress").asLong())
                .put("progressAtHoldEnd", last.path("progress").asLong(-1))
                .put("stillInFlightAtHoldEnd", first.path("signalId").asText().equals(last.path("signalId").asText()))
                .put("doneDuringCut", expected.stream().filter(e -> "DONE".equals(state(cluster, e))).count());
    }

    private static Optional<JsonNode> inFlight(HostsCluster cluster) {
        return cluster.consumerStatus().map(s -> s.path("inFlight")).filter(f -> f.isObject());
    }

    /** The consumer's count of failed signals, -1 when its metrics do not answer. */
    private static double signalsFailed(HostsCluster cluster) {
        return cluster.consumerMetrics().map(m -> Math.max(0, MetricsText.value(m, ConsumerMetrics.SIGNALS_FAILED)))
                .orElse(-1.0);
    }

    /** The host and a port of the service a round cuts the consumer from. */
    private record ServiceCut(Host host, int port) {
        static ServiceCut of(Partition partition, HostsCluster cluster) {
            return switch (partition) {
                case CONSUMER_CUT_FROM_HDFS -> new ServiceCut(cluster.host("hdfs"), cluster.nameNodePort());
                case CONSUMER_CUT_FROM_KUDU -> new ServiceCut(cluster.host("kudu"), cluster.kuduMasterPort());
                default -> null;
            };
        }
    }

    private static String state(HostsCluster cluster, ExpectedEvents e) {
        return cluster.supervisorView(e.dataset()).map(v -> v.path("state").asText()).orElse("");
    }

    /**
     * Small datasets: 4 files of 200 events in 2 jobs, a retried job (its objects duplicate a job's files), a crashed
     * job and events duplicated across files; 3 producer runs each.
     */
    private static GeneratorSpec spec(int n) {
        return new GeneratorSpec(String.format("data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 420000 + n),
                4, 200, 2, 1, 1, 3, false, 20261206L + n);
    }

    /** The named network namespace a process runs in ({@code ip netns identify PID}). */
    private static String namespaceOf(long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "identify", Long.toString(pid)).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor();
        return out;
    }

    private static double seconds(long since) {
        return Math.round((System.nanoTime() - since) / 1e8) / 10.0;
    }

    private void write(ObjectNode report) throws IOException {
        Files.write(reportFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(report));
    }

    private void log(String line) {
        System.out.println(java.time.Instant.now() + " " + line);
    }
}
