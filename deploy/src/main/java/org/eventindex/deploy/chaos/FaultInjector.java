package org.eventindex.deploy.chaos;

import org.eventindex.deploy.BrokerLogins;
import org.eventindex.testing.MetricsText;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Injects one {@link Fault} into a running {@link ChaosCluster}, holds it, lifts it, and waits until the affected
 * daemon is back (restarted daemons must become ready by themselves). Every random choice (which consumer, how long,
 * how much latency) comes from the caller's seeded {@link Random}, so a seed names one schedule.
 */
final class FaultInjector {
    private static final Duration TRIGGER_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration RESET_PERIOD = Duration.ofMillis(400);
    private static final Duration BITE_TIMEOUT = Duration.ofSeconds(60);
    /** How long a daemon may take to see its disk full (the DataNode reports every second). */
    private static final Duration SEEN_FULL_TIMEOUT = Duration.ofSeconds(30);

    private final ChaosCluster cluster;
    private final Consumer<String> log;
    private final BrokerTakeovers takeovers;

    FaultInjector(ChaosCluster cluster, Consumer<String> log) {
        this.cluster = Objects.requireNonNull(cluster, "cluster is null");
        this.log = Objects.requireNonNull(log, "log is null");
        this.takeovers = new BrokerTakeovers(cluster.brokers(), cluster.brokerSettings(BrokerLogins.ADMIN));
    }

    /** The broker takeovers measured so far (one per active broker killed or paused). */
    List<BrokerTakeovers.Takeover> takeovers() {
        return takeovers.measured();
    }

    /** What happened, for the round's report. */
    record Injected(Fault fault, String target, Duration hold, String detail) {
        @Override
        public String toString() {
            return fault + "(" + target + ", " + hold.toMillis() + " ms" + (detail.isEmpty() ? "" : ", " + detail)
                    + ")";
        }
    }

    /**
     * Runs the fault: waits for its trigger (a dataset in flight at a consumer for consumer-side faults), injects,
     * holds for a seeded time, lifts, waits for recovery. {@code inPlace} is run once the fault is in place and before
     * the hold, for a caller that starts the round's work only then ({@link Fault.Strike#BEFORE_PRODUCERS}); for a
     * fault without such a moment it runs once the fault is over (running it twice is harmless by contract).
     */
    Injected run(Fault fault, Random random, Runnable inPlace) throws IOException {
        Injected done = inject(fault, random, inPlace);
        inPlace.run();
        return done;
    }

    private Injected inject(Fault fault, Random random, Runnable inPlace) throws IOException {
        Duration hold = Duration.ofMillis(1000 + random.nextInt(3000));
        int consumerIndex = random.nextInt(ChaosCluster.CONSUMERS);
        if (fault.whileConsuming()) {
            Optional<Integer> busy = awaitBusyConsumer();
            if (busy.isPresent()) {
                consumerIndex = busy.get();
            } else {
                log.accept("  no consumer had a dataset in flight within " + TRIGGER_TIMEOUT + "; injecting anyway");
            }
        }
        ChildProcess consumer = cluster.consumers().get(consumerIndex);
        log.accept("  inject " + fault + ": " + fault.how());
        switch (fault) {
            case KILL_SUPERVISOR -> {
                SupervisorPair pair = cluster.supervisors();
                ChildProcess standby = pair.other(pair.active());
                standby.kill9();
                ChaosWait.hold(hold);
                standby.start();
                pair.awaitSettled(RECOVERY_TIMEOUT);
                return new Injected(fault, standby.name(), hold, "");
            }
            case KILL_CONSUMER -> {
                consumer.kill9();
                ChaosWait.hold(hold);
                consumer.start();
                cluster.awaitReady(consumer, RECOVERY_TIMEOUT);
                return new Injected(fault, consumer.name(), hold, "");
            }
            case KILL_BROKER -> {
                return killBrokerPair(fault, hold);
            }
            case KILL_ACTIVE_BROKER, PAUSE_ACTIVE_BROKER -> {
                return takeOver(fault, hold);
            }
            case KILL_TABLET_SERVER -> {
                cluster.kudu().tabletServer().kill9();
                ChaosWait.hold(hold);
                cluster.kudu().tabletServer().start();
                cluster.kudu().awaitTabletServer(RECOVERY_TIMEOUT);
                return new Injected(fault, "kudu-tserver", hold, "");
            }
            case KILL_DATANODE -> {
                cluster.hdfs().dataNode().kill9();
                ChaosWait.hold(hold);
                cluster.hdfs().dataNode().start();
                cluster.hdfs().awaitWritable(RECOVERY_TIMEOUT);
                return new Injected(fault, "datanode", hold, "");
            }
            case PAUSE_SUPERVISOR -> {
                // within the lease: the standby must not take over (if a busy machine makes it, the woken one
                // exits fenced out and is started again as the standby, which is no violation)
                SupervisorPair pair = cluster.supervisors();
                ChildProcess active = pair.active();
                Duration within = hold.compareTo(SupervisorPair.LEASE.dividedBy(2)) > 0
                        ? SupervisorPair.LEASE.dividedBy(2) : hold;
                active.pause();
                ChaosWait.hold(within);
                active.resume();
                pair.awaitSettled(RECOVERY_TIMEOUT);
                return new Injected(fault, active.name(), within, "");
            }
            case PAUSE_CONSUMER -> {
                consumer.pause();
                ChaosWait.hold(hold);
                consumer.resume();
                cluster.awaitReady(consumer, RECOVERY_TIMEOUT);
                return new Injected(fault, consumer.name(), hold, "");
            }
            case BROKER_RESETS -> {
                int n = resetRepeatedly(cluster.brokers().proxies(), hold);
                return new Injected(fault, "broker proxies", hold, n + " sockets reset");
            }
            case S3_RESETS -> {
                int n = resetRepeatedly(List.of(cluster.s3Proxy()), hold);
                return new Injected(fault, "S3 proxy", hold, n + " sockets reset");
            }
            case BROKER_LATENCY -> {
                Duration delay = Duration.ofMillis(100 + random.nextInt(400));
                cluster.brokers().proxies().forEach(p -> p.latency(delay));
                ChaosWait.hold(hold);
                cluster.brokers().proxies().forEach(p -> p.latency(Duration.ZERO));
                return new Injected(fault, "broker proxies", hold, delay.toMillis() + " ms per chunk");
            }
            case S3_LATENCY -> {
                Duration delay = Duration.ofMillis(100 + random.nextInt(400));
                cluster.s3Proxy().latency(delay);
                ChaosWait.hold(hold);
                cluster.s3Proxy().latency(Duration.ZERO);
                return new Injected(fault, "S3 proxy", hold, delay.toMillis() + " ms per chunk");
            }
            case SPOOL_DISK_FULL -> {
                return diskFull(fault, cluster.spoolDisks(), "consumer spools", hold, () -> { }, inPlace,
                        () -> { });
            }
            case DATANODE_DISK_FULL -> {
                // Full means: the NameNode, told by the DataNode's heartbeat, has no room for a block any more;
                // only then does the round's data start to move. After the release, HDFS must take a block again.
                return diskFull(fault, List.of(cluster.dataNodeDisk().orElseThrow()), "datanode data", hold,
                        () -> awaitQuietly(() -> cluster.hdfs().awaitNoRoom(SEEN_FULL_TIMEOUT)), inPlace,
                        () -> cluster.hdfs().awaitWritable(RECOVERY_TIMEOUT));
            }
            case KILL_ACTIVE_SUPERVISOR -> {
                return killActiveSupervisor(fault);
            }
            case PAUSE_ACTIVE_SUPERVISOR -> {
                return pauseActiveSupervisor(fault, random);
            }
            case STANDBY_STORAGE_SLOW -> {
                return standbyStorageSlow(fault, hold, random);
            }
            default -> throw new IllegalStateException("unhandled fault " + fault);
        }
    }

    /** kill -9 the active supervisor, wait for the standby's takeover (timed), start the killed one as the standby. */
    private Injected killActiveSupervisor(Fault fault) {
        SupervisorPair pair = cluster.supervisors();
        ChildProcess active = pair.active();
        ChildProcess standby = pair.other(active);
        long t0 = System.nanoTime();
        active.kill9();
        String took = takeover(standby, t0);
        Duration down = Duration.ofNanos(System.nanoTime() - t0);
        active.start();
        pair.awaitStandby(active, RECOVERY_TIMEOUT);
        return new Injected(fault, active.name(), down, took);
    }

    /**
     * SIGSTOP the active supervisor until the standby took over (and a little longer, so that the broker may hand the
     * paused one work), SIGCONT it: it must exit fenced out without a byte more in its journal generation.
     *
     * @throws IllegalStateException when the woken supervisor journalled after the takeover or did not stop
     */
    private Injected pauseActiveSupervisor(Fault fault, Random random) {
        SupervisorPair pair = cluster.supervisors();
        ChildProcess active = pair.active();
        ChildProcess standby = pair.other(active);
        long token = (long) pair.metric(active, "eventindex_supervisor_fencing_token");
        int exitsBefore = pair.fencedExits(active);
        active.pause();
        long t0 = System.nanoTime();
        long bytesAtPause = pair.journalBytes(token);
        String took = takeover(standby, t0);
        ChaosWait.hold(Duration.ofMillis(random.nextInt(2000)));
        Duration paused = Duration.ofNanos(System.nanoTime() - t0);
        active.resume();
        ChaosWait.until(active.name() + " exiting fenced out after SIGCONT (log " + active.log() + ")",
                RECOVERY_TIMEOUT, () -> pair.fencedExits(active) > exitsBefore);
        long bytesAfter = pair.journalBytes(token);
        if (bytesAfter != bytesAtPause) {
            throw new IllegalStateException("FENCING BROKEN: " + active.name() + " woke after the takeover and its"
                    + " journal generation-" + token + " grew from " + bytesAtPause + " to " + bytesAfter + " bytes");
        }
        pair.awaitStandby(active, RECOVERY_TIMEOUT);
        return new Injected(fault, active.name(), paused, took + "; woken, it exited fenced out with its journal"
                + " (token " + token + ") unchanged at " + bytesAtPause + " bytes");
    }

    /**
     * Slows the standby's writes to the journal disk, kills the active so that the standby takes over on the slow
     * disk, keeps it slow for the hold, lifts, and starts the killed one again as the standby.
     */
    private Injected standbyStorageSlow(Fault fault, Duration hold, Random random) throws IOException {
        SlowDisk disk = cluster.journalDisk().orElseThrow(() -> new IllegalStateException(
                "no slow-able journal disk: " + cluster.slowDiskUnavailable()));
        SupervisorPair pair = cluster.supervisors();
        ChildProcess active = pair.active();
        ChildProcess standby = pair.other(active);
        int iops = 10 + random.nextInt(40);
        long pid = standby.pid();
        long writesBefore = disk.writesServiced();
        disk.slow(pid, iops);
        String took;
        try {
            long t0 = System.nanoTime();
            active.kill9();
            took = takeover(standby, t0);
            ChaosWait.hold(hold);
        } finally {
            disk.lift(pid);
        }
        long writes = disk.writesServiced() - writesBefore;
        active.start();
        pair.awaitStandby(active, RECOVERY_TIMEOUT);
        return new Injected(fault, standby.name(), hold, iops + " write IOPS on " + disk.device() + ", " + writes
                + " writes throttled; " + took);
    }

    /**
     * Waits for {@code next} to be active (its /ready 200) and to record its first message (a producer or control
     * message journalled, then acknowledged) after a fault at {@code t0}; says how long each took.
     */
    private String takeover(ChildProcess next, long t0) {
        SupervisorPair pair = cluster.supervisors();
        ChaosWait.until(next.name() + " taking over (log " + next.log() + ")", RECOVERY_TIMEOUT,
                () -> pair.ready(next));
        long active = System.nanoTime();
        String first;
        try {
            ChaosWait.until(next.name() + " recording a message", TRIGGER_TIMEOUT, () ->
                    Math.max(0, pair.metric(next, "eventindex_supervisor_producer_messages_total"))
                            + Math.max(0, pair.metric(next, "eventindex_supervisor_control_messages_total")) > 0);
            first = (System.nanoTime() - t0) / 1_000_000 + " ms to the first message recorded";
        } catch (IllegalStateException none) {
            first = "no message to record within " + TRIGGER_TIMEOUT.toSeconds() + " s";
        }
        String line = String.format("takeover by %s: %d ms to active, %s (lease %d ms)", next.name(),
                (active - t0) / 1_000_000, first, SupervisorPair.LEASE.toMillis());
        log.accept("  " + line);
        return line;
    }

    /** Kills both brokers, holds, restarts both: a whole-pair outage that KahaDB's recovery must survive. */
    private Injected killBrokerPair(Fault fault, Duration hold) {
        BrokerPair pair = cluster.brokers();
        pair.brokers().forEach(ChildProcess::kill9);
        ChaosWait.hold(hold);
        pair.brokers().forEach(ChildProcess::start);
        ChildProcess active = pair.awaitActive(RECOVERY_TIMEOUT);
        return new Injected(fault, "broker pair", hold, active.name() + " active after the restart");
    }

    /**
     * Kills (kill -9) or pauses (SIGSTOP) the active broker and measures the standby's takeover; a paused broker is
     * killed by its watchdog. After the hold (from the fault) the old active broker, dead by then, is started again
     * as its service manager would, and must come back as the standby (its port closed while the other listens).
     */
    private Injected takeOver(Fault fault, Duration hold) {
        BrokerPair pair = cluster.brokers();
        ChildProcess active = pair.awaitActive(RECOVERY_TIMEOUT);
        BrokerTakeovers.Takeover t = takeovers.measure(fault == Fault.PAUSE_ACTIVE_BROKER, active, RECOVERY_TIMEOUT);
        log.accept("  takeover: " + t);
        ChaosWait.hold(hold);
        active.start();
        ChildProcess now = pair.awaitActive(RECOVERY_TIMEOUT);
        if (now == active) {
            throw new IllegalStateException(active.name() + " listens again after its restart although "
                    + pair.other(active).name() + " had taken over: two brokers active");
        }
        return new Injected(fault, active.name(), hold, t.toString());
    }

    /**
     * Fills the disks, waits until the daemon sees them full ({@code seenFull}), runs {@code inPlace}, then holds them
     * full at least {@code hold} and until a consumer has failed a dataset because of it (or {@link #BITE_TIMEOUT}
     * passed): the fault is lifted only once it did harm, which the detail records. After the release it waits for
     * {@code recovered}.
     */
    private Injected diskFull(Fault fault, List<TmpfsDisk> disks, String target, Duration hold, Runnable seenFull,
                              Runnable inPlace, Runnable recovered) throws IOException {
        long before = consumerFailures();
        long filled = 0;
        long t0 = System.nanoTime();
        for (TmpfsDisk d : disks) {
            filled += d.fill();
        }
        long fillMillis = (System.nanoTime() - t0) / 1_000_000;
        seenFull.run();
        inPlace.run();
        ChaosWait.hold(hold);
        boolean bit;
        try {
            ChaosWait.until("a consumer failing a dataset on the full disk", BITE_TIMEOUT,
                    () -> consumerFailures() > before);
            bit = true;
        } catch (IllegalStateException timedOut) {
            bit = false;
        }
        long failures = consumerFailures() - before;
        for (TmpfsDisk d : disks) {
            d.release();
        }
        recovered.run();
        return new Injected(fault, target, hold, (filled >> 20) + " MiB filler in " + fillMillis + " ms, " + failures
                + " failed dataset attempt(s) while full" + (bit ? "" : " (the fault did not bite)"));
    }

    /** Runs a wait that may time out; a timeout is logged, not thrown (the bite check then tells what happened). */
    private void awaitQuietly(Runnable wait) {
        try {
            wait.run();
        } catch (IllegalStateException timedOut) {
            log.accept("  " + timedOut.getMessage());
        }
    }

    /** Sum of the consumers' {@code signals_failed_total} counters (a restarted consumer starts again at 0). */
    long consumerFailures() {
        long sum = 0;
        for (ChildProcess c : cluster.consumers()) {
            sum += cluster.get(cluster.httpPort(c), "/metrics").filter(r -> r.statusCode() == 200)
                    .map(r -> Math.max(0L, (long) MetricsText.value(r.body(),
                            "eventindex_consumer_signals_failed_total", ""))).orElse(0L);
        }
        return sum;
    }

    private static int resetRepeatedly(List<org.eventindex.testing.TcpProxy> proxies, Duration hold) {
        long end = System.nanoTime() + hold.toNanos();
        int n = proxies.stream().mapToInt(org.eventindex.testing.TcpProxy::resetAll).sum();
        while (System.nanoTime() - end < 0) {
            ChaosWait.hold(RESET_PERIOD);
            n += proxies.stream().mapToInt(org.eventindex.testing.TcpProxy::resetAll).sum();
        }
        return n;
    }

    /** The index of a consumer whose {@code /status} shows a dataset in flight, waiting up to a minute. */
    private Optional<Integer> awaitBusyConsumer() {
        int[] found = {-1};
        try {
            ChaosWait.until("a consumer with a dataset in flight", TRIGGER_TIMEOUT, () -> {
                List<ChildProcess> consumers = cluster.consumers();
                for (int i = 0; i < consumers.size(); i++) {
                    if (cluster.consumerBusy(consumers.get(i))) {
                        found[0] = i;
                        return true;
                    }
                }
                return false;
            });
            return Optional.of(found[0]);
        } catch (IllegalStateException timedOut) {
            return Optional.empty();
        }
    }
}
