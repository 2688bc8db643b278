package org.eventindex.bench;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompSender;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.supervisor.Supervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.ZooKeeperEnsemble;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * {@code bin/bench-supervisor-rate}: the supervisor at production message rates (issue 22 item 6). Starts a real
 * ActiveMQ broker (STOMP, KahaDB) and the supervisor with its journal on {@code --work} (a real disk: every message is
 * fsynced before it is acknowledged), registers the datasets' manifests, then sends real STOMP producer messages from
 * several sender connections as fast as the broker takes them and measures messages/s until the supervisor has
 * recorded every one. Each dataset gets its files in seed 000's proportions (1,160 files for 1,447 objects: the
 * rest are retried jobs' second objects), so datasets complete and are signalled during the run, as in production.
 * Two rounds by default: 20,000 messages over 50 datasets, and 1,447 messages for one dataset.
 */
@Command(name = "bin/bench-supervisor-rate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = {"Real STOMP producer messages to a running supervisor (broker + journal on"
                + " a real disk), as fast as the broker takes them: messages/s and journal entries (fsyncs)."},
        footer = {"", "Rounds: MESSAGES:DATASETS, e.g. --round 20000:50 --round 1447:1 (the default). The journal is"
                + " on --work: put it on the disk the supervisor would use (not /dev/shm). See docs/performance.md."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every message recorded", "1:a round failed or timed out", "2:bad options"})
public final class SupervisorRateBench implements Callable<Integer> {
    private static final String JOURNAL_SEQ = "eventindex_supervisor_journal_seq";
    private static final String JOURNAL_FSYNCS = "eventindex_supervisor_journal_fsyncs";
    /** Name prefixes of the supervisor's threads: its queue workers, journal writer, signal sender and background. */
    private static final List<String> SUPERVISOR_THREADS = List.of("stomp-worker-supervisor", "supervisor-");

    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Option(names = "--round", paramLabel = "MESSAGES:DATASETS", description = "a round of MESSAGES producer"
            + " messages over DATASETS datasets; repeatable (default 20000:50 and 1447:1)")
    private List<String> rounds = new ArrayList<>();
    @Option(names = "--senders", paramLabel = "N", description = "STOMP sender connections at once, each sending"
            + " with a broker receipt per message as the producer does (default 8)")
    private int senders = 8;
    @Option(names = "--work", paramLabel = "DIR", description = "broker and journal folder, wiped first (default"
            + " work/bench-supervisor-rate)")
    private Path work = Paths.get("work", "bench-supervisor-rate");
    @Option(names = "--broker-work", paramLabel = "DIR", description = "the broker's store (KahaDB) instead of"
            + " --work, wiped first: e.g. /dev/shm, so that the broker's own fsyncs (on another host in production)"
            + " do not share the journal's disk")
    private Path brokerWork;
    @Option(names = "--group-commit-max", paramLabel = "N", description = "the supervisor's "
            + SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX + " (producer messages one fsync may cover; default: the"
            + " supervisor's default; 1: one fsync per message)")
    private Integer groupCommitMax;
    @Option(names = "--brokers", paramLabel = "N", description = "independent brokers (each with its own store), all"
            + " read by the supervisor; sender connection i sends through broker i mod N (default 1)")
    private int brokerCount = 1;
    @Option(names = "--journal-store", paramLabel = "STORE", description = "local (default: the journal on --work,"
            + " fsync) or hdfs (a supervisor with " + SupervisorConfig.HA_STORE + "=zookeeper: its lease in a"
            + " ZooKeeper ensemble of three and its journal on an HDFS cluster of one DataNode, both started here"
            + " under --work; hsync per group commit)")
    private String journalStore = "local";

    @Option(names = "--timeout-minutes", paramLabel = "N", description = "give up a round after N minutes"
            + " (default 30)")
    private int timeoutMinutes = 30;

    private SupervisorRateBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new SupervisorRateBench(out, err), args, out, err);
    }

    /** One round: {@code messages} producer messages over {@code datasets} datasets. */
    record Round(int messages, int datasets) {
        static Round parse(String text) {
            String[] p = text.split(":", -1);
            try {
                if (p.length == 2) {
                    Round r = new Round(Integer.parseInt(p[0].strip()), Integer.parseInt(p[1].strip()));
                    if (r.messages() >= 1 && r.datasets() >= 1 && r.messages() >= r.datasets()) {
                        return r;
                    }
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("--round '" + text + "' is not MESSAGES:DATASETS with"
                    + " MESSAGES >= DATASETS >= 1 (e.g. 20000:50)");
        }
    }

    @Override
    public Integer call() throws Exception {
        List<Round> parsed = new ArrayList<>();
        try {
            for (String r : rounds.isEmpty() ? List.of("20000:50", "1447:1") : rounds) {
                parsed.add(Round.parse(r));
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!List.of("local", "hdfs").contains(journalStore)) {
            throw new ParameterException(spec.commandLine(), "--journal-store must be local or hdfs, got "
                    + journalStore);
        }
        if (senders < 1 || timeoutMinutes < 1 || brokerCount < 1) {
            throw new ParameterException(spec.commandLine(), "--senders, --timeout-minutes and --brokers must be >= 1,"
                    + " got " + senders + ", " + timeoutMinutes + " and " + brokerCount);
        }
        out.println("brokers: " + brokerCount + " independent, senders: " + senders);
        out.printf(Locale.ROOT, "%-10s %9s %9s %12s %13s %15s %15s %8s %10s %14s %14s%n", "round", "messages",
                "datasets", "broker msg/s", "durable msg/s", "journal entries", "entries/message", "fsyncs",
                "msgs/fsync", "process us/msg", "superv. us/msg");
        int status = 0;
        int index = 0;
        for (Round r : parsed) {
            index++;
            Result res = runRound(r, work.resolve("round-" + index),
                    brokerWork == null ? null : brokerWork.resolve("round-" + index));
            out.printf(Locale.ROOT, "%-10s %9d %9d %12.0f %13.0f %15d %15.2f %8d %10.2f %14.0f %14.0f%n",
                    r.messages() + ":" + r.datasets(), res.recorded(), r.datasets(),
                    r.messages() / (res.sendMillis() / 1e3), res.recorded() / (res.durableMillis() / 1e3),
                    res.journalEntries(), (double) res.journalEntries() / res.recorded(), res.fsyncs(),
                    (double) res.recorded() / Math.max(1, res.fsyncs()),
                    res.processCpuNanos() / 1e3 / res.recorded(), res.supervisorCpuNanos() / 1e3 / res.recorded());
            if (res.recorded() != r.messages()) {
                status = 1;
            }
        }
        if (brokerWork != null) {
            ConsumerBenchMain.deleteTree(brokerWork);
        }
        out.println("durable msg/s: first send -> the supervisor has recorded (journal, fsync) every message;"
                + " target 2,000 (issue 22).");
        out.println("process us/msg: CPU (user+sys) of the whole JVM (broker, senders and supervisor) per message;"
                + " superv. us/msg: CPU of the supervisor's own threads (" + SUPERVISOR_THREADS + "*) per message.");
        return status;
    }

    /** What one round measured. */
    record Result(int recorded, long sendMillis, long durableMillis, long journalEntries, long fsyncs,
                  long processCpuNanos, long supervisorCpuNanos) {
    }

    /** The JVM's CPU time (user+sys), nanoseconds; -1 when the platform does not say. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    /** CPU time (user+sys) of each live supervisor thread ({@link #SUPERVISOR_THREADS}), by thread id. */
    private static Map<Long, Long> supervisorThreadCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && SUPERVISOR_THREADS.stream().anyMatch(p -> t.getThreadName().startsWith(p))) {
                long nanos = threads.getThreadCpuTime(t.getThreadId());
                if (nanos >= 0) {
                    cpu.put(t.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }

    /** CPU the supervisor threads used between two {@link #supervisorThreadCpu} snapshots. */
    private static long cpuSince(Map<Long, Long> before, Map<Long, Long> after) {
        return after.entrySet().stream().mapToLong(e -> e.getValue() - before.getOrDefault(e.getKey(), 0L)).sum();
    }

    private Result runRound(Round round, Path dir, Path brokerDir) throws Exception {
        ConsumerBenchMain.deleteTree(dir);
        Files.createDirectories(dir);
        Path store = brokerDir == null ? dir.resolve("broker") : brokerDir;
        ConsumerBenchMain.deleteTree(store);
        BrokerLogins logins = BrokerLogins.random();
        boolean hdfsJournal = journalStore.equals("hdfs");
        try (ZooKeeperEnsemble zk = hdfsJournal ? ZooKeeperEnsemble.start(dir.resolve("zk"), 3) : null;
             EmbeddedHdfs hdfs = hdfsJournal ? EmbeddedHdfs.start(dir.resolve("hdfs")) : null;
             Brokers brokers = Brokers.start(brokerCount, store, logins);
             Supervisor supervisor = new Supervisor(SupervisorConfig.fromProperties(
                     properties(brokers.endpoints(), dir, zk, hdfs), Map.of(SupervisorConfig.ENV_STOMP_PASSWORD,
                             logins.password(BrokerLogins.SUPERVISOR))), Clock.systemUTC())) {
            supervisor.start();
            Duration startTimeout = Duration.ofMinutes(timeoutMinutes);
            // with a standby's store the supervisor takes the lease in the background: the round starts once active
            awaitCount(() -> supervisor.leadership().map(l -> l.role() == Leadership.Role.ACTIVE ? 1 : 0).orElse(1),
                    1, startTimeout, "supervisor active");
            List<String> names = new ArrayList<>();
            List<byte[]> messages = new ArrayList<>();
            try (StompSender operator = new StompSender(logins.settings(brokers.all().get(0).stompEndpoints(),
                    BrokerLogins.OPERATOR))) {
                for (int d = 0; d < round.datasets(); d++) {
                    int perDataset = round.messages() / round.datasets()
                            + (d < round.messages() % round.datasets() ? 1 : 0);
                    String name = datasetName(d);
                    names.add(name);
                    int files = Math.max(1, (int) Math.round(perDataset * 1160.0 / 1447));
                    List<DatasetManifest.ManifestFile> manifest = new ArrayList<>();
                    for (int f = 0; f < files; f++) {
                        manifest.add(new DatasetManifest.ManifestFile(guid(d, f), 100));
                    }
                    operator.send(Queues.SUPERVISOR_CONTROL, SupervisorMessages.manifest(name, manifest), Map.of());
                    // A retried job's second object follows its first, so that every object arrives before the
                    // dataset's last file completes it (objects after the signal are late, counted apart).
                    int m = 0;
                    for (int f = 0; f < files; f++) {
                        messages.add(producerMessage(d, name, m++, f));
                        if (f < perDataset - files) {
                            messages.add(producerMessage(d, name, m++, f));
                        }
                    }
                }
            }
            Duration timeout = Duration.ofMinutes(timeoutMinutes);
            awaitCount(() -> names.stream().filter(n -> supervisor.dataset(n).isPresent()).count(), names.size(),
                    timeout, "manifests registered");
            long seq0 = journalSeq(supervisor);
            long fsyncs0 = (long) gauge(supervisor.metrics(), JOURNAL_FSYNCS);
            long cpu0 = processCpuNanos();
            Map<Long, Long> threads0 = supervisorThreadCpu();
            long t0 = System.nanoTime();
            AtomicInteger next = new AtomicInteger();
            List<Callable<Void>> connections = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                EmbeddedBroker through = brokers.all().get(s % brokers.all().size());
                connections.add(() -> {
                    try (StompSender sender = new StompSender(logins.settings(through.stompEndpoints(),
                            BrokerLogins.PRODUCER))) {
                        for (int i = next.getAndIncrement(); i < messages.size(); i = next.getAndIncrement()) {
                            sender.send(Queues.SUPERVISOR, messages.get(i), Map.of());
                        }
                    }
                    return null;
                });
            }
            MessagingBaseline.runAll(senders, connections, "a sender");
            long sendNanos = System.nanoTime() - t0;
            long recorded = awaitCount(() -> names.stream().mapToLong(n -> supervisor.dataset(n)
                    .map(DatasetView::objectsReported).orElse(0)).sum(), messages.size(), timeout,
                    "producer messages recorded");
            long durableNanos = System.nanoTime() - t0;
            long cpu = processCpuNanos() - cpu0;
            long supervisorCpu = cpuSince(threads0, supervisorThreadCpu());
            long entries = journalSeq(supervisor) - seq0;
            long fsyncs = (long) gauge(supervisor.metrics(), JOURNAL_FSYNCS) - fsyncs0;
            return new Result((int) recorded, sendNanos / 1_000_000, durableNanos / 1_000_000, entries, fsyncs, cpu,
                    supervisorCpu);
        }
    }

    /** Polls {@code count} until it reaches {@code target}; returns the last count (fails after the timeout). */
    private long awaitCount(java.util.function.LongSupplier count, long target, Duration timeout, String what)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long n = count.getAsLong();
            if (n >= target) {
                return n;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(what + ": " + n + " of " + target + " within " + timeout);
            }
            Thread.sleep(20); // a view costs the supervisor a little: poll gently
        }
    }

    private static long journalSeq(Supervisor supervisor) {
        return (long) gauge(supervisor.metrics(), JOURNAL_SEQ);
    }

    /** The value of the unlabelled gauge {@code name} (its unit suffix included) in {@code registry}. */
    static double gauge(PrometheusRegistry registry, String name) {
        for (MetricSnapshot s : registry.scrape()) {
            String n = s.getMetadata().getPrometheusName();
            if ((n.equals(name) || (n + "_bytes").equals(name)) && s instanceof GaugeSnapshot g
                    && !g.getDataPoints().isEmpty()) {
                return g.getDataPoints().get(0).getValue();
            }
        }
        throw new IllegalStateException("no gauge " + name + " in the daemon's metrics");
    }

    /** The round's independent brokers, each with its own store below {@code store} (one: {@code store} itself). */
    private record Brokers(List<EmbeddedBroker> all) implements AutoCloseable {
        static Brokers start(int n, Path store, BrokerLogins logins) {
            Brokers b = new Brokers(new ArrayList<>());
            try {
                for (int i = 0; i < n; i++) {
                    b.all.add(EmbeddedBroker.startSecured(n == 1 ? store : store.resolve("broker-" + i),
                            logins.security()));
                }
                return b;
            } catch (RuntimeException e) {
                b.close();
                throw e;
            }
        }

        String endpoints() {
            return all.stream().map(EmbeddedBroker::stompEndpoints).collect(Collectors.joining(","));
        }

        @Override
        public void close() {
            all.forEach(EmbeddedBroker::close);
        }
    }

    private Properties properties(String brokers, Path dir, ZooKeeperEnsemble zk, EmbeddedHdfs hdfs) {
        Properties p = new Properties();
        if (zk != null) {
            p.setProperty(SupervisorConfig.HA_ENABLED, "true");
            p.setProperty(SupervisorConfig.HA_STORE, "zookeeper");
            p.setProperty(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zk.connectString());
            p.setProperty(SupervisorConfig.JOURNAL_HDFS_DIR, hdfs.uri() + "/eventindex/supervisor/journal");
        }
        if (groupCommitMax != null) {
            p.setProperty(SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX, groupCommitMax.toString());
        }
        p.setProperty(SupervisorConfig.BROKERS, brokers);
        p.setProperty(SupervisorConfig.STOMP_USER, BrokerLogins.SUPERVISOR);
        p.setProperty(SupervisorConfig.JOURNAL_DIR, dir.toAbsolutePath().resolve("journal").toString());
        p.setProperty(SupervisorConfig.S3_BUCKET, SupervisorMessages.BUCKET);
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.KUDU_EPOCH, "1");
        return p;
    }

    static String datasetName(int d) {
        return String.format(Locale.ROOT, "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid%08d_00",
                20_000_000 + d);
    }

    private static String guid(int dataset, int file) {
        return UUID.nameUUIDFromBytes((dataset + "/" + file).getBytes(StandardCharsets.UTF_8)).toString()
                .toUpperCase(Locale.ROOT);
    }

    /** The message of producer run {@code m} of dataset {@code d}, for the manifest's file {@code file}. */
    private static byte[] producerMessage(int d, String dataset, int m, int file) {
        String uuid = UUID.nameUUIDFromBytes((dataset + "#" + m).getBytes(StandardCharsets.UTF_8)).toString()
                .replace("-", "");
        return SupervisorMessages.objectStored(uuid, dataset, (20_000_000 + d) + ".G", Integer.toString(4_000_000 + m),
                uuid, guid(d, file), 100, 1_000L * file + 1);
    }

}
