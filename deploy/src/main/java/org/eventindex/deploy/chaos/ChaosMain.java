package org.eventindex.deploy.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.testing.hosts.HostNetwork;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bin/chaos}: starts the whole system as separate processes, runs seeded chaos rounds (faults while datasets
 * flow through), checks every round and, at the end, every dataset again; prints a summary table. Exit status 0 when
 * no violation was found, 1 when any was, 2 for bad usage.
 */
@Command(name = "bin/chaos", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = "Seeded chaos rounds against the whole system as separate processes.",
        footer = {"", "Needs Ceph (deploy/ceph/install-ceph.sh) and a build (mvn -DskipTests package)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:no violation found", "1:a violation was found, or the run failed", "2:bad usage"})
public final class ChaosMain implements Callable<Integer> {
    @Spec
    private CommandSpec spec;
    @Option(names = "--seed", paramLabel = "N", description = "seed of the datasets and of the fault schedule"
            + " (default 1)")
    private long seed = 1;
    @Option(names = "--rounds", paramLabel = "R", description = "rounds to run (default 10; 0 = as many as fit in"
            + " --minutes)")
    private int rounds = 10;
    @Option(names = "--minutes", paramLabel = "M", description = "stop starting new rounds after M minutes"
            + " (default 30)")
    private int minutes = 30;
    @Option(names = "--datasets", paramLabel = "D", description = "new datasets per round (default 2)")
    private int datasets = 2;
    @Option(names = "--faults", paramLabel = "F", description = "faults injected per round, one after the other"
            + " (default 1)")
    private int faults = 1;
    @Option(names = "--only", paramLabel = "FAULT", split = ",", description = "draw the faults only among these"
            + " kinds (e.g. KILL_BROKER,PAUSE_ACTIVE_SUPERVISOR; default: every kind)")
    private List<Fault> only = List.of();
    @Option(names = "--work", paramLabel = "DIR", description = "folder for every process's data and logs (default"
            + " target/chaos-<seed>-<time>); kept after the run for inspection")
    private Path work;
    @Option(names = "--network", paramLabel = "DESCRIPTION", description = "run on this host network's control host"
            + " (what the first process hands the driver it starts there; without it bin/chaos makes the network,"
            + " as root, and starts itself on its control host)")
    private String network;

    private ChaosMain() {
    }

    /** Checked command line. */
    record Options(long seed, int rounds, int minutes, int datasets, int faults, Path work, Set<Fault> only,
                   String network) {
        Options {
            only = Set.copyOf(only);
        }

        /** The command line of these options, with {@code network} as {@code --network}. */
        List<String> args(String network) {
            List<String> a = new ArrayList<>(List.of("--seed", Long.toString(seed), "--rounds", Integer.toString(rounds),
                    "--minutes", Integer.toString(minutes), "--datasets", Integer.toString(datasets), "--faults",
                    Integer.toString(faults), "--work", work.toString(), "--network", network));
            if (!only.isEmpty()) {
                a.add("--only");
                a.add(String.join(",", only.stream().map(Fault::name).sorted().toList()));
            }
            return a;
        }
    }

    /** The checked options of a command line, without running anything (tests). */
    static Options parse(String... args) {
        ChaosMain main = new ChaosMain();
        CommandLines.of(main, System.out, System.err).parseArgs(args);
        return main.options();
    }

    private Options options() {
        atLeast("--rounds", rounds, 0);
        atLeast("--minutes", minutes, 1);
        atLeast("--datasets", datasets, 1);
        atLeast("--faults", faults, 0);
        Path dir = work != null ? work : Path.of("target", "chaos-" + seed + "-" + System.currentTimeMillis());
        return new Options(seed, rounds, minutes, datasets, faults, dir.toAbsolutePath(), Set.copyOf(only), network);
    }

    private void atLeast(String option, int value, int min) {
        if (value < min) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + min + ", was " + value);
        }
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Parses {@code args} and runs the rounds; {@code --help}, {@code --version} and bad options return at once. */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new ChaosMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        Options o = options();
        return o.network() == null ? onHosts(o) : run(o);
    }

    /**
     * Makes the cluster's hosts ({@link ChaosCluster#HOSTS}, network namespaces) and runs the driver, this command
     * with {@code --network}, on the control host, its output passed through; deletes the hosts when it ends.
     */
    private static int onHosts(Options o) throws IOException, InterruptedException {
        List<String> missing = HostNetwork.missing();
        if (!missing.isEmpty()) {
            System.err.println("[chaos] every role runs on a host of its own (a network namespace), which needs "
                    + String.join(", ", missing));
            return 1;
        }
        Files.createDirectories(o.work());
        try (HostNetwork net = HostNetwork.create(ChaosCluster.HOSTS)) {
            List<String> props = new ArrayList<>();
            for (String p : List.of("kuduBinDir", "ei.producer.jar", "ei.chaos.noTmpfs")) {
                if (System.getProperty(p) != null) {
                    props.add("-D" + p + "=" + System.getProperty(p));
                }
            }
            List<String> cmd = ChildProcess.java(ChaosMain.class.getName(), System.getProperty("java.class.path"),
                    "1g").options(props).args(o.args(net.describe())).on(net.host("control")).command();
            Process driver = new ProcessBuilder(cmd).inheritIO().start();
            try {
                return driver.waitFor();
            } finally {
                if (driver.isAlive()) {
                    driver.destroy();
                    if (!driver.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                        driver.destroyForcibly();
                    }
                }
            }
        }
    }

    static int run(Options o) {
        String jar = System.getProperty("ei.producer.jar", "producer/target/eventindex-producer.jar");
        long t0 = System.nanoTime();
        Duration budget = Duration.ofMinutes(o.minutes());
        List<ChaosRunner.RoundReport> reports = new ArrayList<>();
        List<BrokerOutage> outages = new ArrayList<>();
        List<FaultInjector.Takeover> takeovers = new ArrayList<>();
        List<FaultInjector.PartitionHeal> heals = new ArrayList<>();
        CheckResult last = null;
        try {
            Files.createDirectories(o.work());
            System.out.println("[chaos] seed " + o.seed() + ", work " + o.work());
            HostNetwork net = HostNetwork.attach(o.network());
            try (ChaosCluster cluster = ChaosCluster.start(o.work(), net, "chaos_", s -> System.out.println("[chaos] "
                    + s))) {
                ChaosRunner runner = new ChaosRunner(cluster, Path.of(jar).toAbsolutePath(), o.seed(),
                        s -> System.out.println("[chaos] " + s));
                for (int r = 1; o.rounds() == 0 || r <= o.rounds(); r++) {
                    if (Duration.ofNanos(System.nanoTime() - t0).compareTo(budget) > 0) {
                        System.out.println("[chaos] " + o.minutes() + " minutes reached; no new round");
                        break;
                    }
                    try {
                        reports.add(runner.round(r, runner.drawFaults(o.faults(), o.only()), o.datasets()));
                    } finally {
                        outages.clear();
                        outages.addAll(runner.brokerOutages());
                        takeovers.clear();
                        takeovers.addAll(runner.takeovers());
                        heals.clear();
                        heals.addAll(runner.heals());
                    }
                }
                last = runner.finalCheck();
                System.out.println("[chaos] brokers started again after they died outside a broker fault (a"
                        + " watchdog's kill on a loaded machine): " + cluster.brokers().keeperRestarts());
            }
        } catch (Exception e) {
            System.err.println("[chaos] the run failed: " + e);
            e.printStackTrace();
            printSummary(reports, null, Duration.ofNanos(System.nanoTime() - t0));
            printBrokerOutages(outages);
            printTakeovers(takeovers);
            printHeals(heals);
            return 1;
        }
        printSummary(reports, last, Duration.ofNanos(System.nanoTime() - t0));
        printBrokerOutages(outages);
        printTakeovers(takeovers);
        printHeals(heals);
        boolean ok = last.ok() && reports.stream().allMatch(r -> r.check().ok());
        return ok ? 0 : 1;
    }

    /** The broker outages of the run, per kind: how many, and min / median / max of each measured step. */
    private static void printBrokerOutages(List<BrokerOutage> outages) {
        for (Fault kind : List.of(Fault.KILL_BROKER, Fault.PAUSE_BROKER)) {
            List<BrokerOutage> o = outages.stream().filter(x -> x.fault() == kind).toList();
            if (o.isEmpty()) {
                continue;
            }
            System.out.println(String.format("brokers %s alone: %d%s; min / median / max:%s down %s, listening after"
                            + " the restart %s, the daemons subscribed on it again after the restart %s",
                    kind == Fault.PAUSE_BROKER ? "paused" : "killed", o.size(), kind == Fault.PAUSE_BROKER ? ""
                            : " (" + o.stream().filter(BrokerOutage::atReceipt).count() + " as they sent a receipt)",
                    kind == Fault.PAUSE_BROKER ? " watchdog kill " + spread(o.stream().map(
                            BrokerOutage::killedAfter).toList()) + "," : "",
                    spread(o.stream().map(BrokerOutage::down).toList()),
                    spread(o.stream().map(BrokerOutage::listening).toList()),
                    spread(o.stream().map(BrokerOutage::resubscribed).toList())));
        }
    }

    /** The supervisor takeovers of the run, per fault kind: how many, min / median / max to active and to work. */
    private static void printTakeovers(List<FaultInjector.Takeover> takeovers) {
        for (Fault kind : Fault.values()) {
            List<FaultInjector.Takeover> t = takeovers.stream().filter(x -> x.fault() == kind).toList();
            if (t.isEmpty()) {
                continue;
            }
            List<Duration> first = t.stream().map(FaultInjector.Takeover::toFirstMessage)
                    .filter(java.util.Objects::nonNull).toList();
            System.out.println(String.format("supervisor takeovers after %s: %d (lease %d ms); min / median / max: to"
                            + " active %s, to the first message recorded %s (%d had a message to record)", kind,
                    t.size(), SupervisorPair.LEASE.toMillis(),
                    spread(t.stream().map(FaultInjector.Takeover::toActive).toList()),
                    spread(first), first.size()));
        }
    }

    /** The partitions of the run, per kind: how many, min / median / max held and from the heal to the recovery. */
    private static void printHeals(List<FaultInjector.PartitionHeal> heals) {
        for (Fault kind : Fault.values()) {
            List<FaultInjector.PartitionHeal> h = heals.stream().filter(x -> x.fault() == kind).toList();
            if (h.isEmpty()) {
                continue;
            }
            List<Duration> recovered = h.stream().map(FaultInjector.PartitionHeal::recovered)
                    .filter(java.util.Objects::nonNull).toList();
            System.out.println(String.format("partitions %s: %d; min / median / max: held %s, from the heal to the"
                            + " recovery %s (%d of %d recovered)", kind, h.size(),
                    spread(h.stream().map(FaultInjector.PartitionHeal::held).toList()), spread(recovered),
                    recovered.size(), h.size()));
        }
    }

    /** min / median / max of {@code values} in ms. */
    private static String spread(List<Duration> values) {
        if (values.isEmpty()) {
            return "-";
        }
        List<Long> ms = values.stream().map(Duration::toMillis).sorted().toList();
        return ms.get(0) + " / " + ms.get(ms.size() / 2) + " / " + ms.get(ms.size() - 1) + " ms";
    }

    private static void printSummary(List<ChaosRunner.RoundReport> reports, CheckResult last, Duration took) {
        List<String> faultCells = reports.stream().map(r -> r.faults().isEmpty() ? "-" : String.join(" ",
                r.faults().stream().map(i -> i.fault() + "(" + i.target() + ")").toList())).toList();
        int width = Math.max(58, faultCells.stream().mapToInt(String::length).max().orElse(0));
        System.out.println();
        System.out.println(String.format("%-5s %-" + width + "s %8s %8s %8s %5s %5s %5s %6s", "round", "faults",
                "datasets", "events", "in Kudu", "lost", "extra", "viol.", "secs"));
        long faults = 0;
        for (int i = 0; i < reports.size(); i++) {
            ChaosRunner.RoundReport r = reports.get(i);
            faults += r.faults().size();
            CheckResult c = r.check();
            System.out.println(String.format("%-5d %-" + width + "s %8d %8d %8d %5d %5d %5d %6d", r.round(),
                    faultCells.get(i), c.datasets(), c.expectedEvents(), c.eventsFound(), c.lost(), c.extra(),
                    c.violations().size(), r.duration().toSeconds()));
        }
        if (last != null) {
            System.out.println(String.format("final check over all rounds: %d rounds, %d faults injected, %d datasets,"
                            + " %d events, lost %d, duplicated %d, violations %d, %d s", reports.size(), faults,
                    last.datasets(), last.expectedEvents(), last.lost(), last.extra(), last.violations().size(),
                    took.toSeconds()));
            last.violations().forEach(v -> System.out.println("  " + v));
        }
    }
}
