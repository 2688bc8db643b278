package org.eventindex.bench.supervisor;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.config.ConfigReader;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.SupervisorMain;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.Ports;
import org.eventindex.testing.ZooKeeperEnsemble;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Takeover times of two supervisors with the lease in ZooKeeper and the journal on HDFS (decision 0043), not a test:
 * a ZooKeeper ensemble of three, an HDFS of one DataNode and a broker in this JVM, the supervisors as child JVMs.
 * Each round kills the active with SIGKILL, then pauses the next one with SIGSTOP (woken once the standby took over:
 * it must exit fenced out, 75), and measures from the fault to the standby's {@code /ready} 200.
 */
public final class SupervisorTakeoverBench {
    private static final Duration WAIT = Duration.ofMinutes(3);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> processes = new ArrayList<>();
    private int started;

    /** The command line of {@code bin/bench-supervisor takeover}. */
    @Command(name = "bin/bench-supervisor takeover", mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class, sortOptions = false, description = "Takeover times of two"
            + " supervisors on ZooKeeper and HDFS after kill -9 and after a pause (not a test); with --partition"
            + " every process on its own host and a third fault, the active's host isolated; results go in"
            + " docs/operations.md.")
    static final class Line implements Callable<Integer> {
        @Option(names = "--rounds", paramLabel = "N", description = "kills and pauses each (default 3)")
        int rounds = 3;
        @Option(names = "--session-timeout", paramLabel = "DURATION", description = "supervisor.ha.lease, the"
                + " ZooKeeper session timeout (default 10s, the production default; 1s to 10s here)")
        String sessionTimeout = "10s";
        @Option(names = "--work", paramLabel = "DIR", description = "ZooKeeper, HDFS, broker and logs (default"
                + " java.io.tmpdir/ei-bench-takeover, wiped)")
        Path work = Path.of(System.getProperty("java.io.tmpdir"), "ei-bench-takeover");
        @Option(names = "--partition", description = "every process on its own host (network namespaces; root, ip,"
                + " nft), ZooKeeper as three processes, and a partition round: the active's host isolated; kill -9"
                + " and SIGSTOP measured in the same run on the same hosts")
        boolean partition;

        @Override
        public Integer call() throws Exception {
            Duration session = ConfigReader.parseDuration("--session-timeout", sessionTimeout);
            return partition ? SupervisorTakeoverOnHosts.run(rounds, session, work)
                    : new SupervisorTakeoverBench().run(rounds, session, work);
        }
    }

    public static void main(String[] args) {
        System.exit(CommandLines.execute(new Line(), args, System.out, System.err));
    }

    private record Child(String name, Process process, int port, Path log) {
    }

    private int run(int rounds, Duration session, Path work) throws Exception {
        SupervisorStartBench.deleteTree(work);
        Files.createDirectories(work);
        List<Long> kills = new ArrayList<>();
        List<Long> pauses = new ArrayList<>();
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start(work.resolve("zk"), 3);
             EmbeddedHdfs hdfs = EmbeddedHdfs.start(work.resolve("hdfs"));
             EmbeddedBroker broker = EmbeddedBroker.start(work.resolve("broker"))) {
            Map<String, String> common = new TreeMap<>();
            common.put(SupervisorConfig.BROKERS, broker.stompEndpoints());
            common.put(SupervisorConfig.HTTP_HOST, "127.0.0.1");
            common.put(SupervisorConfig.HA_ENABLED, "true");
            common.put(SupervisorConfig.HA_STORE, "zookeeper");
            common.put(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zk.connectString());
            common.put(SupervisorConfig.JOURNAL_HDFS_DIR, hdfs.uri() + "/eventindex/supervisor/journal");
            common.put(SupervisorConfig.HA_LEASE, session.toMillis() + "ms");
            common.put(SupervisorConfig.HA_RENEW_INTERVAL, Math.max(100, session.toMillis() / 10) + "ms");
            Child active = start(work, common);
            await("the first supervisor active", () -> status(active) == 200);
            Child standby = start(work, common);
            await("a standby", () -> status(standby) == 503);
            Child a = active;
            Child s = standby;
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                a.process().destroyForcibly();
                Child waiting = s;
                await("takeover after kill -9", () -> status(waiting) == 200);
                kills.add((System.nanoTime() - t0) / 1_000_000);
                a = s;
                s = start(work, common);
                Child next = s;
                await("a standby", () -> status(next) == 503);

                signal("STOP", a);
                t0 = System.nanoTime();
                Child taking = s;
                await("takeover after SIGSTOP", () -> status(taking) == 200);
                pauses.add((System.nanoTime() - t0) / 1_000_000);
                signal("CONT", a);
                if (!a.process().waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)
                        || a.process().exitValue() != Leadership.EXIT_FENCED) {
                    throw new IllegalStateException("the woken supervisor " + a.name() + " did not exit fenced out ("
                            + Leadership.EXIT_FENCED + "); log " + a.log());
                }
                a = s;
                s = start(work, common);
                Child again = s;
                await("a standby", () -> status(again) == 503);
                System.out.printf(Locale.ROOT, "round %d of %d: kill -9 %d ms, SIGSTOP %d ms%n", r + 1, rounds,
                        kills.get(r), pauses.get(r));
            }
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }
        System.out.printf(Locale.ROOT, "%nsession timeout %s; from the fault to the standby's /ready 200 (ms):%n",
                session);
        System.out.printf(Locale.ROOT, "%-10s %s median %d p90 %d%n", "kill -9", kills,
                SupervisorTakeoverOnHosts.percentile(kills, 50), SupervisorTakeoverOnHosts.percentile(kills, 90));
        System.out.printf(Locale.ROOT, "%-10s %s median %d p90 %d%n", "SIGSTOP", pauses,
                SupervisorTakeoverOnHosts.percentile(pauses, 50), SupervisorTakeoverOnHosts.percentile(pauses, 90));
        return 0;
    }

    private Child start(Path work, Map<String, String> common) throws IOException {
        String name = "s" + started++;
        int port = Ports.free();
        Map<String, String> p = new TreeMap<>(common);
        p.put(SupervisorConfig.HA_ID, name);
        p.put(SupervisorConfig.HTTP_PORT, Integer.toString(port));
        p.put(SupervisorConfig.JOURNAL_DIR, work.toAbsolutePath().resolve("local-" + name).toString());
        StringBuilder sb = new StringBuilder();
        p.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Path config = work.resolve(name + ".properties");
        Files.writeString(config, sb.toString());
        Path log = work.resolve(name + ".log");
        Process process = ChildJvm.main(SupervisorMain.class).heap("256m").quickStart()
                .args("run", "--config", config.toString()).start(log);
        processes.add(process);
        return new Child(name, process, port, log);
    }

    private int status(Child c) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + c.port() + "/ready"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void signal(String sig, Child c) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(c.process().pid())).start();
        if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
            throw new IllegalStateException("kill -" + sig + " " + c.name() + " failed");
        }
    }

    /** Polls every 10 ms: the measured time is at most that late. */
    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": not within " + WAIT);
            }
            Thread.sleep(10);
        }
    }
}
