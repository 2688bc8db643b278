package org.eventindex.deploy.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/chaos}: starts the whole system as separate processes, runs seeded chaos rounds (faults while datasets
 * flow through), checks every round and, at the end, every dataset again; prints a summary table. Exit status 0 when
 * no violation was found, 1 when any was, 2 for bad usage.
 */
public final class ChaosMain {
    private static final String USAGE = """
            usage: bin/chaos [--seed N] [--rounds R] [--minutes M] [--datasets D] [--faults F] [--work DIR]
              --seed N      seed of the datasets and of the fault schedule (default 1)
              --rounds R    rounds to run (default 10; 0 = as many as fit in --minutes)
              --minutes M   stop starting new rounds after M minutes (default 30)
              --datasets D  new datasets per round (default 2)
              --faults F    faults injected per round, one after the other (default 1)
              --work DIR    folder for every process's data and logs (default target/chaos-<seed>-<time>);
                            kept after the run for inspection
            Needs Ceph (deploy/ceph/install-ceph.sh) and a build (mvn -DskipTests install).""";

    private ChaosMain() {
    }

    record Options(long seed, int rounds, int minutes, int datasets, int faults, Path work) {
        static Options parse(String[] args) {
            long seed = 1;
            int rounds = 10;
            int minutes = 30;
            int datasets = 2;
            int faults = 1;
            Path work = null;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help") || a.equals("-h")) {
                    throw new IllegalArgumentException("");
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--rounds" -> rounds = atLeast(a, Integer.parseInt(v), 0);
                    case "--minutes" -> minutes = atLeast(a, Integer.parseInt(v), 1);
                    case "--datasets" -> datasets = atLeast(a, Integer.parseInt(v), 1);
                    case "--faults" -> faults = atLeast(a, Integer.parseInt(v), 0);
                    case "--work" -> work = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (work == null) {
                work = Path.of("target", "chaos-" + seed + "-" + System.currentTimeMillis());
            }
            return new Options(seed, rounds, minutes, datasets, faults, work.toAbsolutePath());
        }

        private static int atLeast(String option, int value, int min) {
            if (value < min) {
                throw new IllegalArgumentException(option + " must be at least " + min + ", was " + value);
            }
            return value;
        }
    }

    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("chaos: " + e.getMessage());
            }
            System.err.println(USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        System.exit(run(o));
    }

    static int run(Options o) {
        String jar = System.getProperty("ei.producer.jar", "producer/target/eventindex-producer.jar");
        long t0 = System.nanoTime();
        Duration budget = Duration.ofMinutes(o.minutes());
        List<ChaosRunner.RoundReport> reports = new ArrayList<>();
        CheckResult last = null;
        try {
            Files.createDirectories(o.work());
            System.out.println("[chaos] seed " + o.seed() + ", work " + o.work());
            try (ChaosCluster cluster = ChaosCluster.start(o.work(), "chaos_", s -> System.out.println("[chaos] "
                    + s))) {
                ChaosRunner runner = new ChaosRunner(cluster, Path.of(jar).toAbsolutePath(), o.seed(),
                        s -> System.out.println("[chaos] " + s));
                for (int r = 1; o.rounds() == 0 || r <= o.rounds(); r++) {
                    if (Duration.ofNanos(System.nanoTime() - t0).compareTo(budget) > 0) {
                        System.out.println("[chaos] " + o.minutes() + " minutes reached; no new round");
                        break;
                    }
                    reports.add(runner.round(r, runner.drawFaults(o.faults()), o.datasets()));
                }
                last = runner.finalCheck();
            }
        } catch (Exception e) {
            System.err.println("[chaos] the run failed: " + e);
            e.printStackTrace();
            printSummary(reports, null, Duration.ofNanos(System.nanoTime() - t0));
            return 1;
        }
        printSummary(reports, last, Duration.ofNanos(System.nanoTime() - t0));
        boolean ok = last.ok() && reports.stream().allMatch(r -> r.check().ok());
        return ok ? 0 : 1;
    }

    private static void printSummary(List<ChaosRunner.RoundReport> reports, CheckResult last, Duration took) {
        System.out.println();
        System.out.println(String.format("%-5s %-58s %8s %8s %8s %5s %5s %5s %6s", "round", "faults", "datasets",
                "events", "in Kudu", "lost", "extra", "viol.", "secs"));
        long faults = 0;
        for (ChaosRunner.RoundReport r : reports) {
            String f = String.join(" ", r.faults().stream().map(i -> i.fault() + "(" + i.target() + ")").toList());
            faults += r.faults().size();
            CheckResult c = r.check();
            System.out.println(String.format("%-5d %-58s %8d %8d %8d %5d %5d %5d %6d", r.round(),
                    f.isEmpty() ? "-" : f, c.datasets(), c.expectedEvents(), c.eventsFound(), c.lost(), c.extra(),
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
