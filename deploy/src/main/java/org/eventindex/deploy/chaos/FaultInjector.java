package org.eventindex.deploy.chaos;

import org.eventindex.deploy.BrokerLogins;
import org.eventindex.message.Queues;
import org.eventindex.consumer.ConsumerMetrics;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.testing.MetricsText;
import org.eventindex.testing.TcpProxy;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
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
    private final List<BrokerOutage> outages = new CopyOnWriteArrayList<>();
    private final List<Takeover> takeovers = new CopyOnWriteArrayList<>();
    private final List<PartitionHeal> heals = new CopyOnWriteArrayList<>();

    FaultInjector(ChaosCluster cluster, Consumer<String> log) {
        this.cluster = Objects.requireNonNull(cluster, "cluster is null");
        this.log = Objects.requireNonNull(log, "log is null");
    }

    /** The broker outages measured so far (one per broker killed or paused alone). */
    List<BrokerOutage> brokerOutages() {
        return List.copyOf(outages);
    }

    /**
     * One supervisor takeover: the fault that caused it, from the fault to the standby active ({@code /ready} 200),
     * and to its first message recorded (null when no message came within the trigger timeout).
     */
    record Takeover(Fault fault, Duration toActive, Duration toFirstMessage) {
    }

    /**
     * One partition healed: the fault, its target, how long it was in place, and the time from the heal to the
     * recovery its kind names (null when that did not come within the recovery timeout).
     */
    record PartitionHeal(Fault fault, String target, Duration held, Duration recovered) {
    }

    /** The partitions healed so far. */
    List<PartitionHeal> heals() {
        return List.copyOf(heals);
    }

    /** The supervisor takeovers measured so far. */
    List<Takeover> takeovers() {
        return List.copyOf(takeovers);
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
            case KILL_BROKER, PAUSE_BROKER -> {
                return cluster.brokers().heldDown(() -> brokerOutage(fault, hold, random));
            }
            case KILL_ALL_BROKERS -> {
                return cluster.brokers().heldDown(() -> killAllBrokers(fault, hold));
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
            case SUPERVISOR_CUT_FROM_BROKERS -> {
                return supervisorCutFromBrokers(fault, partitionHold(random));
            }
            case BROKER_ISOLATED -> {
                return brokerIsolated(fault, partitionHold(random), random);
            }
            case CONSUMER_CUT_FROM_HDFS, CONSUMER_CUT_FROM_KUDU -> {
                return consumerCut(fault, partitionHold(random), inPlace);
            }
            case PRODUCER_CUT_FROM_BROKERS -> {
                return producerCutFromBrokers(fault, partitionHold(random));
            }
            case SUPERVISOR_ISOLATED -> {
                return supervisorIsolated(fault, partitionHold(random));
            }
            case SUPERVISOR_CUT_FROM_STORE -> {
                return supervisorCutFromStore(fault, partitionHold(random));
            }
            case ZK_MINORITY -> {
                return zooKeeperMinority(fault, partitionHold(random), random);
            }
            case PRODUCER_CUT_FROM_S3_MID_MULTIPART -> {
                return producerCutFromS3MidMultipart(fault, partitionHold(random));
            }
            default -> throw new IllegalStateException("unhandled fault " + fault);
        }
    }

    /**
     * How long a partition stays: 2 to 10 s, so that some outlast the daemons' STOMP heartbeats (their connections
     * then end and are made again after the heal) and some do not (the stalled connections carry on).
     */
    private static Duration partitionHold(Random random) {
        return Duration.ofMillis(2000 + random.nextInt(8000));
    }

    /**
     * Which ZooKeeper server {@link Fault#ZK_MINORITY} isolates: drawn (the leader or a follower) or the leader; never
     * the server the active supervisor's session is on (that one is {@code SupervisorPartitionIT}'s case: the active
     * notices a silent server only after its client's read timeout, two thirds of the session, when it fences itself
     * out, decision 0048).
     */
    enum ZooKeeperTarget { DRAWN, LEADER }

    private volatile ZooKeeperTarget zooKeeperTarget = ZooKeeperTarget.DRAWN;

    /** Which server the next {@link Fault#ZK_MINORITY} isolates. */
    void zooKeeperTarget(ZooKeeperTarget target) {
        zooKeeperTarget = Objects.requireNonNull(target, "target is null");
    }

    private List<Host> brokerHosts() {
        return cluster.brokers().brokers().stream().map(b -> cluster.brokers().host(b)).toList();
    }

    /** Cuts the active supervisor's host from every broker's, holds, heals; waits until it subscribed again. */
    private Injected supervisorCutFromBrokers(Fault fault, Duration hold) {
        HostNetwork net = cluster.network();
        ChildProcess active = cluster.supervisors().active();
        Host h = cluster.hostOf(active);
        brokerHosts().forEach(b -> net.cut(h, b));
        log.accept("  " + net.partitions());
        try {
            ChaosWait.hold(hold);
        } finally {
            brokerHosts().forEach(b -> net.heal(h, b));
        }
        long healed = System.nanoTime();
        Duration recovered = recovery(() -> cluster.brokers().brokers().forEach(b -> ChaosWait.until(active.name()
                + " subscribed on " + b.name() + " again", RECOVERY_TIMEOUT, () -> subscribed(active,
                Queues.SUPERVISOR, cluster.brokers().endpoint(b)))), healed);
        cluster.supervisors().awaitSettled(RECOVERY_TIMEOUT);
        return healed(fault, active.name() + " on " + h.name(), hold, recovered, "subscribed on every broker");
    }

    /**
     * Cuts one broker's host from the daemons' hosts (the producers still reach it) until a producer message waits
     * on it, isolates it from every host, holds, heals; waits until the daemons subscribed on it again and its queues
     * were read.
     */
    private Injected brokerIsolated(Fault fault, Duration hold, Random random) {
        HostNetwork net = cluster.network();
        IndependentBrokers brokers = cluster.brokers();
        ChildProcess broker = brokers.brokers().get(random.nextInt(IndependentBrokers.COUNT));
        Host bh = brokers.host(broker);
        List<Host> daemons = new java.util.ArrayList<>();
        cluster.supervisors().both().forEach(s -> daemons.add(cluster.hostOf(s)));
        cluster.consumers().forEach(c -> daemons.add(cluster.hostOf(c)));
        BrokerQueues queues = new BrokerQueues(List.of(brokers.endpoint(broker)), List.of(Queues.SUPERVISOR),
                endpoint -> cluster.brokerSettingsOf(endpoint, BrokerLogins.ADMIN));
        long t0 = System.nanoTime();
        daemons.forEach(d -> net.cut(d, bh));
        boolean holding;
        try {
            ChaosWait.until(broker.name() + " holding a producer message nobody can read", TRIGGER_TIMEOUT,
                    () -> queues.unread().values().stream().anyMatch(n -> n > 0));
            holding = true;
        } catch (IllegalStateException none) {
            holding = false;
            log.accept("  no producer message waited on " + broker.name() + " within " + TRIGGER_TIMEOUT
                    + "; isolating it anyway");
        }
        int held = queues.unread().values().stream().mapToInt(n -> Math.max(0, n)).sum();
        net.isolate(bh);
        log.accept("  " + net.partitions() + "; " + held + " producer message(s) on " + broker.name());
        try {
            ChaosWait.hold(hold);
        } finally {
            net.rejoin(bh);
            daemons.forEach(d -> net.heal(d, bh));
        }
        long healed = System.nanoTime();
        Duration recovered = recovery(() -> {
            awaitSubscribed(broker);
            ChaosWait.until("the messages held by " + broker.name() + " read", RECOVERY_TIMEOUT,
                    () -> queues.unread().isEmpty());
        }, healed);
        return healed(fault, broker.name() + " on " + bh.name(), Duration.ofNanos(healed - t0), recovered,
                (holding ? held + " producer message(s) held" : "nothing held") + "; read after the heal");
    }

    /**
     * Cuts every consumer's host from HDFS's or Kudu's, lets the round's producers start ({@code inPlace}), waits until
     * a consumer has a dataset in flight (taken while cut: it waits on the silent network), holds, heals; then waits
     * until no consumer has anything in flight.
     */
    private Injected consumerCut(Fault fault, Duration hold, Runnable inPlace) {
        HostNetwork net = cluster.network();
        Host service = cluster.host(fault == Fault.CONSUMER_CUT_FROM_HDFS ? "hdfs" : "kudu");
        List<Host> consumerHosts = cluster.consumers().stream().map(cluster::hostOf).distinct().toList();
        Optional<Integer> busy;
        try {
            consumerHosts.forEach(h -> net.cut(h, service));
            log.accept("  " + net.partitions());
            inPlace.run();
            busy = awaitBusyConsumer();
            if (busy.isEmpty()) {
                log.accept("  no consumer took a dataset within " + TRIGGER_TIMEOUT + " while cut; healing");
            }
            ChaosWait.hold(hold);
        } finally {
            consumerHosts.forEach(h -> net.heal(h, service));
        }
        long healed = System.nanoTime();
        Duration recovered = recovery(() -> ChaosWait.until("every consumer done with its dataset", RECOVERY_TIMEOUT,
                () -> cluster.consumers().stream().noneMatch(cluster::consumerBusy)), healed);
        String target = busy.map(i -> cluster.consumers().get(i).name()).orElse("consumers") + " from "
                + service.name();
        return healed(fault, target, hold, recovered, busy.isPresent() ? "a dataset in flight" : "nothing in flight");
    }

    /**
     * Holds the next upload (a {@code PUT}, which only producers send to S3) at the S3 proxy, cuts the producers' host
     * from every broker's, lets the upload through (it completes with the cut in place: the producer has stored its
     * object and cannot announce it), holds, heals; waits until the supervisor recorded a producer message after the
     * heal (the held producer's, sent once the network carries it again).
     */
    private Injected producerCutFromBrokers(Fault fault, Duration hold) {
        HostNetwork net = cluster.network();
        Host producers = cluster.host("producer");
        FaultProxy s3 = cluster.s3Proxy();
        boolean afterUpload = holdS3Request("PUT /", "producer upload");
        brokerHosts().forEach(b -> net.cut(producers, b));
        s3.release();
        log.accept("  " + net.partitions() + (afterUpload ? " after an upload" : ""));
        ChildProcess active = cluster.supervisors().active();
        double recorded = cluster.supervisors().metric(active, "eventindex_supervisor_producer_messages_total");
        try {
            ChaosWait.hold(hold);
        } finally {
            brokerHosts().forEach(b -> net.heal(producers, b));
        }
        long healed = System.nanoTime();
        Duration recovered = afterUpload ? producerMessageSince(recorded, healed) : null;
        return healed(fault, "producer", hold, recovered, afterUpload ? "cut after an upload" : "no upload to cut after");
    }

    /** The fencing token {@code s} holds or last held ({@code eventindex_supervisor_fencing_token}), -1 if silent. */
    private long token(ChildProcess s) {
        return (long) cluster.supervisors().metric(s, "eventindex_supervisor_fencing_token");
    }

    /** A consumer metric of every consumer that answers (-1 for one that does not). */
    private List<Long> consumerMetric(String name) {
        return cluster.consumers().stream().map(c -> cluster.get(c, "/metrics").filter(r -> r.statusCode() == 200)
                .map(r -> (long) MetricsText.value(r.body(), name, "")).orElse(-1L)).toList();
    }

    private static long positiveSum(List<Long> values) {
        return values.stream().mapToLong(v -> Math.max(0, v)).sum();
    }

    /**
     * Samples both supervisors' {@code /ready} until stopped, counting the samples in which both answered 200 (two
     * active supervisors: what fencing must never allow).
     */
    private static final class BothActive implements AutoCloseable {
        private final Thread thread;
        private volatile boolean stop;
        private volatile int both;
        private volatile int samples;

        BothActive(SupervisorPair pair) {
            thread = new Thread(() -> {
                while (!stop) {
                    if (pair.both().stream().allMatch(pair::ready)) {
                        both++;
                    }
                    samples++;
                    ChaosWait.hold(Duration.ofMillis(100));
                }
            }, "chaos-both-active");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            stop = true;
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /**
         * Stops sampling; what was seen ("two active in N of M samples").
         *
         * @throws IllegalStateException when both were active in a sample ({@code during} says when)
         */
        String stop(String during) {
            close();
            String seen = "two active in " + both + " of " + samples + " samples";
            if (both > 0) {
                throw new IllegalStateException("FENCING BROKEN: " + seen + " " + during);
            }
            return seen;
        }
    }

    /** The active supervisor a partition is about to depose: it, its standby, host, token and fenced exits so far. */
    private record Deposed(ChildProcess old, ChildProcess standby, Host host, long token, int exitsBefore) {
    }

    private Deposed deposed() {
        SupervisorPair pair = cluster.supervisors();
        ChildProcess old = pair.active();
        return new Deposed(old, pair.other(old), cluster.hostOf(old), token(old), pair.fencedExits(old));
    }

    /**
     * After a takeover from {@code d.old()} (its journal generation {@code sealedBytes} long once the standby took
     * over) and a heal at {@code healed}: waits until it exited fenced out (the keeper starts it again) and stands by,
     * every sample of its {@code eventindex_supervisor_active} meanwhile 0, then requires its journal generation
     * unchanged. The time from the heal to it standing by, null when it did not.
     *
     * @throws IllegalStateException when the deposed supervisor acted as active or journalled after the takeover
     */
    private Duration deposedStaysQuiet(Deposed d, long sealedBytes, long healed) {
        SupervisorPair pair = cluster.supervisors();
        ChildProcess old = d.old();
        long token = d.token();
        int exitsBefore = d.exitsBefore();
        int[] activeSamples = {0};
        Duration recovered = recovery(() -> {
            ChaosWait.until(old.name() + " exiting fenced out after the heal (log " + old.log() + ")",
                    RECOVERY_TIMEOUT, () -> {
                        if (pair.fencedExits(old) > exitsBefore) {
                            return true;
                        }
                        if (pair.metric(old, "eventindex_supervisor_active") == 1) {
                            activeSamples[0]++;
                        }
                        return false;
                    });
            pair.awaitStandby(old, RECOVERY_TIMEOUT);
        }, healed);
        long after = pair.journalBytes(token);
        if (activeSamples[0] > 0) {
            throw new IllegalStateException("FENCING BROKEN: " + old.name() + " (token " + token + ") answered"
                    + " eventindex_supervisor_active 1 in " + activeSamples[0] + " sample(s) after the takeover");
        }
        if (after != sealedBytes) {
            throw new IllegalStateException("FENCING BROKEN: " + old.name() + "'s journal generation-" + token
                    + " went from " + sealedBytes + " to " + after + " bytes after the takeover");
        }
        return recovered;
    }

    /**
     * Isolates the active supervisor's host from every host; the standby takes over once the old one's ZooKeeper
     * session expires; holds, heals: the old one must exit fenced out having journalled nothing and never answered
     * active, and the consumers must hold the new token (a signal of the old token reaching them after it is refused:
     * {@code eventindex_consumer_signals_stale_token_total}, reported).
     */
    private Injected supervisorIsolated(Fault fault, Duration hold) {
        HostNetwork net = cluster.network();
        SupervisorPair pair = cluster.supervisors();
        Deposed d = deposed();
        ChildProcess old = d.old();
        ChildProcess standby = d.standby();
        Host h = d.host();
        long token = d.token();
        long staleBefore = positiveSum(consumerMetric(ConsumerMetrics.SIGNALS_STALE_TOKEN));
        long t0 = System.nanoTime();
        net.isolate(h);
        log.accept("  " + net.partitions());
        String took;
        long sealedBytes;
        try {
            took = takeoverToActive(fault, standby, t0);
            sealedBytes = pair.journalBytes(token);
            ChaosWait.hold(rest(hold, t0));
        } finally {
            net.rejoin(h);
        }
        long healed = System.nanoTime();
        Duration held = Duration.ofNanos(healed - t0);
        long newToken = token(standby);
        if (newToken <= token) {
            throw new IllegalStateException(standby.name() + " took over with token " + newToken + ", not above the"
                    + " isolated one's " + token);
        }
        Duration recovered = deposedStaysQuiet(d, sealedBytes, healed);
        List<Long> consumerTokens = consumerMetric(ConsumerMetrics.SUPERVISOR_TOKEN);
        long stale = positiveSum(consumerMetric(ConsumerMetrics.SIGNALS_STALE_TOKEN)) - staleBefore;
        return healed(fault, old.name() + " on " + h.name(), held, recovered, took + "; token " + token + " -> "
                + newToken + "; after the heal " + old.name() + " exited fenced out, never active, its journal"
                + " generation-" + token + " unchanged at " + sealedBytes + " bytes; consumers' highest tokens "
                + consumerTokens + ", " + stale + " stale-token signal(s) refused");
    }

    /**
     * Cuts the active supervisor's host from the ZooKeeper servers' and HDFS's (not from the brokers'): it must stop
     * acting (suspended: its {@code /ready} no longer 200, as the driver still sees it) and the standby take over,
     * never both active; holds, heals; the old one exits fenced out and stands by again, its journal generation
     * unchanged.
     */
    private Injected supervisorCutFromStore(Fault fault, Duration hold) {
        HostNetwork net = cluster.network();
        SupervisorPair pair = cluster.supervisors();
        Deposed d = deposed();
        List<Host> store = new java.util.ArrayList<>();
        for (int i = 0; i < cluster.zooKeeper().size(); i++) {
            store.add(cluster.zooKeeper().host(i));
        }
        store.add(cluster.journalHdfs().host());
        String took;
        long sealedBytes;
        Duration fenced;
        String sampled;
        long t0;
        try (BothActive both = new BothActive(pair)) {
            t0 = System.nanoTime();
            try {
                store.forEach(s -> net.cut(d.host(), s));
                log.accept("  " + net.partitions());
                ChaosWait.until(d.old().name() + " suspending itself, cut from its store (log " + d.old().log() + ")",
                        RECOVERY_TIMEOUT, () -> !pair.ready(d.old()));
                fenced = since(t0);
                took = takeoverToActive(fault, d.standby(), t0);
                sealedBytes = pair.journalBytes(d.token());
                ChaosWait.hold(rest(hold, t0));
            } finally {
                store.forEach(s -> net.heal(d.host(), s));
            }
            sampled = both.stop("while " + d.old().name() + " was cut from ZooKeeper and HDFS");
        }
        long healed = System.nanoTime();
        Duration recovered = deposedStaysQuiet(d, sealedBytes, healed);
        return healed(fault, d.old().name() + " on " + d.host().name(), Duration.ofNanos(healed - t0), recovered,
                "stopped acting (suspended, /ready 503) " + fenced.toMillis() + " ms after the cut; " + took + "; " + sampled
                        + "; its journal generation-" + d.token() + " unchanged at " + sealedBytes + " bytes");
    }

    /**
     * Isolates one ZooKeeper server of three ({@link #zooKeeperTarget}: the leader, also when the active's session is
     * on it, or a seeded choice among the servers the active's session is not on); holds, heals; says whether there
     * was a takeover (the same supervisor active with the same token, no fenced exit: none) and waits until the server
     * serves in the quorum again. The leader's isolation costs the active a suspension at most (decision 0048).
     */
    private Injected zooKeeperMinority(Fault fault, Duration hold, Random random) {
        HostNetwork net = cluster.network();
        SupervisorPair pair = cluster.supervisors();
        org.eventindex.testing.ZooKeeperEnsemble zk = cluster.zooKeeper();
        ChildProcess active = pair.active();
        Host activeHost = cluster.hostOf(active);
        long token = token(active);
        int exits = pair.fencedExits(active) + pair.fencedExits(pair.other(active));
        int leader = -1;
        int sessionOn = -1;
        List<Integer> others = new java.util.ArrayList<>();
        for (int i = 0; i < zk.size(); i++) {
            if ("leader".equals(zk.mode(i))) {
                leader = i;
            }
            if (zk.ask(i, "cons").contains("/" + activeHost.address() + ":")) {
                sessionOn = i;
            } else {
                others.add(i);
            }
        }
        int drawn = others.isEmpty() ? random.nextInt(zk.size()) : others.get(random.nextInt(others.size()));
        int server = zooKeeperTarget == ZooKeeperTarget.LEADER && leader >= 0 ? leader : drawn;
        String role = (server == leader ? "the leader" : "a follower") + (server == sessionOn
                ? ", the active's session on it" : "");
        Host zh = zk.host(server);
        long t0 = System.nanoTime();
        long healed;
        Duration recovered;
        String sampled;
        try (BothActive both = new BothActive(pair)) {
            net.isolate(zh);
            log.accept("  " + net.partitions() + " (" + role + "; the active's session on "
                    + (sessionOn < 0 ? "?" : zk.host(sessionOn).name()) + ")");
            try {
                ChaosWait.hold(hold);
            } finally {
                net.rejoin(zh);
            }
            healed = System.nanoTime();
            recovered = recovery(() -> zk.awaitQuorum(RECOVERY_TIMEOUT), healed);
            pair.awaitSettled(RECOVERY_TIMEOUT);
            sampled = both.stop("around the isolation of ZooKeeper server " + zh.name());
        }
        ChildProcess now = pair.active();
        boolean kept = now == active && token(active) == token
                && pair.fencedExits(active) + pair.fencedExits(pair.other(active)) == exits;
        double suspensions = pair.metric(active, "eventindex_supervisor_lease_suspensions_total");
        String mode = zk.mode(server);
        return healed(fault, zh.name() + " (" + role + ")", Duration.ofNanos(healed - t0), recovered,
                (kept ? "no takeover: " + active.name() + " active throughout with token " + token + " ("
                        + (suspensions > 0 ? (long) suspensions + " lease suspension(s) so far, resumed"
                        : "its lease never suspended") + ")"
                        : "TAKEOVER: " + active.name() + " (token " + token + ") lost its lease, " + now.name()
                        + " active with token " + token(now))
                        + "; " + sampled + "; " + zh.name() + " back as " + (mode.isEmpty() ? "nothing" : mode));
    }


    /** Producer and control messages {@code s} recorded (0 when it does not answer). */
    private double recorded(ChildProcess s) {
        SupervisorPair pair = cluster.supervisors();
        return Math.max(0, pair.metric(s, "eventindex_supervisor_producer_messages_total"))
                + Math.max(0, pair.metric(s, "eventindex_supervisor_control_messages_total"));
    }

    /**
     * Holds the second part of a multipart upload at the S3 proxy (its {@code PUT ...partNumber=2} request: only the
     * producers upload, and only a file above their multipart threshold goes in parts), cuts the producers' host from
     * S3's, lets the part through to S3 (its answer is lost on the cut), holds, heals; waits until the supervisor
     * records a producer message after the heal (the producer finished the upload or retried it, and announced it).
     */
    private Injected producerCutFromS3MidMultipart(Fault fault, Duration hold) {
        HostNetwork net = cluster.network();
        Host producers = cluster.host("producer");
        Host s3Host = cluster.host("s3");
        FaultProxy s3 = cluster.s3Proxy();
        boolean midUpload = holdS3Request("partNumber=2", "second part of a multipart upload");
        double recorded = cluster.supervisors().metric(cluster.supervisors().active(),
                "eventindex_supervisor_producer_messages_total");
        long t0 = System.nanoTime();
        net.cut(producers, s3Host);
        s3.release();
        log.accept("  " + net.partitions() + (midUpload ? " with the second part of an upload in flight" : ""));
        try {
            ChaosWait.hold(hold);
        } finally {
            net.heal(producers, s3Host);
        }
        long healed = System.nanoTime();
        Duration recovered = midUpload ? producerMessageSince(recorded, healed) : null;
        return healed(fault, "producer from s3", Duration.ofNanos(healed - t0), recovered, midUpload
                ? "cut with the second part of a multipart upload in flight" : "no multipart upload to cut");
    }

    /**
     * Arms the S3 proxy to hold the next request carrying {@code pattern} (only producers send requests with a body
     * to S3) and waits for one; false (logged) when none came within the trigger timeout.
     */
    private boolean holdS3Request(String pattern, String what) {
        FaultProxy s3 = cluster.s3Proxy();
        s3.holdAt(TcpProxy.Direction.CLIENT_TO_SERVER, pattern);
        try {
            ChaosWait.until("a " + what, TRIGGER_TIMEOUT, s3::holding);
            return true;
        } catch (IllegalStateException none) {
            log.accept("  no " + what + " within " + TRIGGER_TIMEOUT + "; cutting the producers anyway");
            return false;
        }
    }

    /** The time from {@code healed} to the active supervisor counting more producer messages than {@code recorded}. */
    private Duration producerMessageSince(double recorded, long healed) {
        return recovery(() -> ChaosWait.until("a producer message recorded after the heal", RECOVERY_TIMEOUT,
                () -> cluster.supervisors().metric(cluster.supervisors().active(),
                        "eventindex_supervisor_producer_messages_total") > recorded), healed);
    }

    /** Runs {@code await}; the time since {@code healed} when it returned, null when it timed out (logged). */
    private Duration recovery(Runnable await, long healed) {
        try {
            await.run();
            return since(healed);
        } catch (IllegalStateException timedOut) {
            log.accept("  not recovered: " + timedOut.getMessage());
            return null;
        }
    }

    private Injected healed(Fault fault, String target, Duration held, Duration recovered, String detail) {
        heals.add(new PartitionHeal(fault, target, held, recovered));
        String line = "healed after " + held.toMillis() + " ms; " + (recovered == null ? "NOT recovered"
                : "recovered " + recovered.toMillis() + " ms after the heal") + " (" + detail + ")";
        log.accept("  " + line);
        return new Injected(fault, target, held, line);
    }

    /** kill -9 the active supervisor, wait for the standby's takeover (timed), start the killed one as the standby. */
    private Injected killActiveSupervisor(Fault fault) {
        SupervisorPair pair = cluster.supervisors();
        ChildProcess active = pair.active();
        ChildProcess standby = pair.other(active);
        long t0 = System.nanoTime();
        active.kill9();
        String took = takeover(fault, standby, t0);
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
        String took = takeover(fault, standby, t0);
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
     * Waits for {@code next} to be active (its /ready 200) and to record its first message (a producer or control
     * message journalled, then acknowledged) after a fault at {@code t0}; says how long each took.
     */
    private String takeover(Fault fault, ChildProcess next, long t0) {
        long active = awaitActive(next);
        String first;
        Duration toFirst = null;
        try {
            ChaosWait.until(next.name() + " recording a message", TRIGGER_TIMEOUT, () -> recorded(next) > 0);
            toFirst = since(t0);
            first = toFirst.toMillis() + " ms to the first message recorded";
        } catch (IllegalStateException none) {
            first = "no message to record within " + TRIGGER_TIMEOUT.toSeconds() + " s";
        }
        takeovers.add(new Takeover(fault, Duration.ofNanos(active - t0), toFirst));
        String line = String.format("takeover by %s: %d ms to active, %s (lease %d ms)", next.name(),
                (active - t0) / 1_000_000, first, SupervisorPair.LEASE.toMillis());
        log.accept("  " + line);
        return line;
    }

    /** Waits for {@code next} to be active (its /ready 200); when it was. */
    private long awaitActive(ChildProcess next) {
        ChaosWait.until(next.name() + " taking over (log " + next.log() + ")", RECOVERY_TIMEOUT,
                () -> cluster.supervisors().ready(next));
        return System.nanoTime();
    }

    /**
     * A takeover under a partition: waits for {@code next} to be active after a fault at {@code t0} and records the
     * time; the first message is not waited for (the partition is healed after its hold, not after work came).
     */
    private String takeoverToActive(Fault fault, ChildProcess next, long t0) {
        long active = awaitActive(next);
        takeovers.add(new Takeover(fault, Duration.ofNanos(active - t0), null));
        String line = String.format("takeover by %s: %d ms to active (lease %d ms)", next.name(),
                (active - t0) / 1_000_000, SupervisorPair.LEASE.toMillis());
        log.accept("  " + line);
        return line;
    }

    /** What is left of {@code hold} since {@code t0} (zero when it is over). */
    private static Duration rest(Duration hold, long t0) {
        Duration left = hold.minus(since(t0));
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Kills every broker of the alias, holds, restarts each: an outage of the whole alias KahaDB must survive. */
    private Injected killAllBrokers(Fault fault, Duration hold) {
        IndependentBrokers brokers = cluster.brokers();
        brokers.brokers().forEach(ChildProcess::kill9);
        ChaosWait.hold(hold);
        long t0 = System.nanoTime();
        brokers.brokers().forEach(ChildProcess::start);
        brokers.brokers().forEach(b -> brokers.awaitListening(b, RECOVERY_TIMEOUT));
        Duration listening = since(t0);
        brokers.brokers().forEach(this::awaitSubscribed);
        return new Injected(fault, "every broker", hold, "listening " + listening.toMillis() + " ms after the"
                + " restart, the daemons subscribed on every broker again " + since(t0).toMillis() + " ms after it");
    }

    /**
     * Kills (kill -9) or pauses (SIGSTOP) one broker of the alias, drawn from {@code random}; a paused broker is
     * killed by its watchdog. A kill strikes the moment the broker has stored a message: the first receipt it sends
     * after the fault is due (to a producer, the supervisor or a consumer, each of which sends persistent messages
     * with a receipt) is dropped by its proxy and the broker killed before anything else passes, so it dies holding a
     * message its sender will send again through another broker. After the hold (from the fault) the broker is
     * started again on its own store, as its service manager would, and the daemons must subscribe on it again: what
     * it stored is then delivered, and counted once with the copy sent through the other broker.
     */
    private Injected brokerOutage(Fault fault, Duration hold, Random random) {
        IndependentBrokers brokers = cluster.brokers();
        ChildProcess broker = brokers.brokers().get(random.nextInt(IndependentBrokers.COUNT));
        long t0 = System.nanoTime();
        Duration killed = null;
        boolean atReceipt = false;
        if (fault == Fault.PAUSE_BROKER) {
            broker.pause();
            ChaosWait.until("the watchdog killing the paused " + broker.name(), RECOVERY_TIMEOUT,
                    () -> !broker.isAlive());
            killed = since(t0);
        } else {
            atReceipt = killAtReceipt(broker);
            t0 = System.nanoTime();
        }
        ChaosWait.hold(hold);
        Duration down = since(t0);
        long t1 = System.nanoTime();
        broker.start();
        brokers.awaitListening(broker, RECOVERY_TIMEOUT);
        Duration listening = since(t1);
        awaitSubscribed(broker);
        BrokerOutage o = new BrokerOutage(fault, broker.name(), atReceipt, killed, down, listening, since(t1));
        outages.add(o);
        log.accept("  " + broker.name() + ": " + o);
        return new Injected(fault, broker.name(), hold, o.toString());
    }

    /**
     * kill -9 {@code broker} as the next receipt it sends passes its proxy (the receipt dropped with the connection);
     * without a receipt within {@link #TRIGGER_TIMEOUT}, kill it anyway. True when it died at a receipt.
     */
    private boolean killAtReceipt(ChildProcess broker) {
        // The proxy, on the broker's host, kills the broker itself: nothing passes between the receipt and the kill.
        FaultProxy proxy = cluster.brokers().proxy(broker);
        proxy.killAt("RECEIPT\n", broker.pid());
        boolean struck;
        try {
            ChaosWait.until("a receipt from " + broker.name(), TRIGGER_TIMEOUT, proxy::struck);
            struck = true;
        } catch (IllegalStateException none) {
            struck = proxy.disarm();
        }
        if (!struck) {
            log.accept("  no receipt from " + broker.name() + " within " + TRIGGER_TIMEOUT + "; killing it");
        }
        // reaps the process the proxy killed, or kills it
        broker.kill9();
        return struck;
    }

    /**
     * Waits until the active supervisor is subscribed to the producer queue on {@code broker} and every consumer to
     * the consumer queue, as their {@code eventindex_broker_subscribed} gauges say.
     */
    private void awaitSubscribed(ChildProcess broker) {
        String endpoint = cluster.brokers().endpoint(broker);
        ChaosWait.until("the supervisor and every consumer subscribed on " + broker.name() + " (" + endpoint + ")",
                RECOVERY_TIMEOUT, () -> subscribed(cluster.supervisor(), Queues.SUPERVISOR, endpoint)
                        && cluster.consumers().stream().allMatch(c -> subscribed(c, Queues.CONSUMER, endpoint)));
    }

    /**
     * Whether {@code daemon}'s {@code /metrics} has {@code eventindex_broker_subscribed} at 1 for {@code queue} (with
     * or without its {@code /queue/} prefix) on {@code brokerEndpoint}, labels in any order.
     */
    private boolean subscribed(ChildProcess daemon, String queue, String brokerEndpoint) {
        String name = queue.startsWith("/queue/") ? queue.substring("/queue/".length()) : queue;
        String brokerLabel = "broker=\"" + brokerEndpoint + "\"";
        return cluster.get(daemon, "/metrics").filter(r -> r.statusCode() == 200)
                .map(r -> r.body().lines().anyMatch(l -> l.startsWith(DaemonMetrics.BROKER_SUBSCRIBED + "{")
                        && l.contains(brokerLabel) && (l.contains("queue=\"" + name + "\"")
                        || l.contains("queue=\"/queue/" + name + "\""))
                        && Double.parseDouble(l.substring(l.lastIndexOf('}') + 1).strip().split("\\s+")[0]) == 1))
                .orElse(false);
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
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
            sum += cluster.get(c, "/metrics").filter(r -> r.statusCode() == 200)
                    .map(r -> Math.max(0L, (long) MetricsText.value(r.body(),
                            "eventindex_consumer_signals_failed_total", ""))).orElse(0L);
        }
        return sum;
    }

    private static int resetRepeatedly(List<FaultProxy> proxies, Duration hold) {
        long end = System.nanoTime() + hold.toNanos();
        int n = proxies.stream().mapToInt(FaultProxy::resetAll).sum();
        while (System.nanoTime() - end < 0) {
            ChaosWait.hold(RESET_PERIOD);
            n += proxies.stream().mapToInt(FaultProxy::resetAll).sum();
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
