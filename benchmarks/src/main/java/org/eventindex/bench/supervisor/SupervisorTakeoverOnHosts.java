package org.eventindex.bench.supervisor;

import org.eventindex.deploy.chaos.SupervisorHaOnHosts;
import org.eventindex.deploy.chaos.SupervisorHaOnHosts.Supervisor;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.hosts.HostNetwork;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/bench-supervisor takeover --partition}: the takeover times of {@link SupervisorTakeoverBench} with every
 * process on its own host (network namespaces, as root: {@link SupervisorHaOnHosts}: three ZooKeeper servers as
 * processes, HDFS, a broker, two supervisors), so that the active can be cut off. Each round: kill -9 of the active
 * (the baseline, the same fault as the in-JVM run), SIGSTOP of the next active, and the next active's host isolated
 * from every other host (healed once the standby is ready: the old one must exit fenced out, 75). Each time is from
 * the fault to the standby's {@code /ready} 200, polled every 100 ms from a control host. This process makes the
 * network and runs {@link #main} on the control host, which drives the rounds and prints the figures.
 */
public final class SupervisorTakeoverOnHosts {
    private static final Duration WAIT = Duration.ofMinutes(10);

    private SupervisorTakeoverOnHosts() {
    }

    /** Makes the hosts, runs the rounds from the control host, deletes the hosts; the driver's exit status. */
    static int run(int rounds, Duration session, Path work) throws Exception {
        List<String> missing = HostNetwork.missing();
        if (!missing.isEmpty()) {
            System.err.println("--partition needs hosts as network namespaces: " + String.join(", ", missing));
            return 2;
        }
        SupervisorStartBench.deleteTree(work);
        Files.createDirectories(work);
        try (HostNetwork net = HostNetwork.create(SupervisorHaOnHosts.HOSTS)) {
            Process driver = ChildJvm.main(SupervisorTakeoverOnHosts.class).heap("256m").quickStart()
                    .options("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                    .args(net.describe(), Integer.toString(rounds), Long.toString(session.toMillis()),
                            work.toAbsolutePath().toString())
                    .on(net.host("control")).builder().inheritIO().start();
            if (!driver.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                driver.destroy();
                driver.waitFor(60, TimeUnit.SECONDS);
                System.err.println("the rounds did not finish within " + WAIT);
                return 1;
            }
            return driver.exitValue();
        }
    }

    /** The driver, on the control host: network description, rounds, session timeout in ms, work folder. */
    public static void main(String[] args) throws Exception {
        HostNetwork net = HostNetwork.attach(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Duration session = Duration.ofMillis(Long.parseLong(args[2]));
        List<Long> kills = new ArrayList<>();
        List<Long> pauses = new ArrayList<>();
        List<Long> partitions = new ArrayList<>();
        int status = 0;
        try (SupervisorHaOnHosts c = SupervisorHaOnHosts.start(net, Path.of(args[3]), session)) {
            Supervisor active = c.supervisor("s0", net.host("supa"));
            c.awaitReady(active);
            Supervisor standby = c.supervisor("s1", net.host("supb"));
            c.awaitStandby(standby);
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                c.kill(active);
                c.awaitReady(standby);
                kills.add(millisSince(t0));
                c.restart(active);
                Supervisor next = active;
                active = standby;
                standby = next;

                c.pause(active);
                t0 = System.nanoTime();
                c.awaitReady(standby);
                pauses.add(millisSince(t0));
                c.resume(active);
                requireFencedExit(c, active);
                c.restart(active);
                next = active;
                active = standby;
                standby = next;

                t0 = System.nanoTime();
                net.isolate(active.host());
                c.awaitReady(standby);
                partitions.add(millisSince(t0));
                net.rejoin(active.host());
                requireFencedExit(c, active);
                c.restart(active);
                next = active;
                active = standby;
                standby = next;
                System.out.printf(Locale.ROOT, "round %d of %d: kill -9 %d ms, SIGSTOP %d ms, partition %d ms%n",
                        r + 1, rounds, kills.get(r), pauses.get(r), partitions.get(r));
            }
        } catch (RuntimeException e) {
            e.printStackTrace();
            status = 1;
        }
        if (!kills.isEmpty()) {
            System.out.printf(Locale.ROOT, "%nsession timeout %s, every process on its own host; from the fault to"
                    + " the standby's /ready 200 (ms, polled every 100 ms):%n", session);
            print("kill -9", kills);
            print("SIGSTOP", pauses);
            print("partition", partitions);
            if (!partitions.isEmpty()) {
                System.out.printf(Locale.ROOT, "partition / kill -9 (medians): %.2f%n",
                        (double) percentile(partitions, 50) / percentile(kills, 50));
            }
        }
        System.exit(status);
    }

    private static void requireFencedExit(SupervisorHaOnHosts c, Supervisor s) {
        int exit = c.awaitExit(s);
        if (exit != Leadership.EXIT_FENCED) {
            throw new IllegalStateException("supervisor " + s.name() + " did not exit fenced out ("
                    + Leadership.EXIT_FENCED + ") but " + exit + "; log " + s.log());
        }
    }

    private static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void print(String fault, List<Long> values) {
        System.out.printf(Locale.ROOT, "%-10s %s median %d p90 %d%n", fault, values, percentile(values, 50),
                percentile(values, 90));
    }

    /** The nearest-rank percentile. */
    static long percentile(List<Long> values, int p) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = values.stream().sorted().toList();
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
