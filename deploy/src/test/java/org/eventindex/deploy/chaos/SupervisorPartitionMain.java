package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.chaos.SupervisorHaOnHosts.Supervisor;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.message.Queues;
import org.eventindex.names.ObjectKey;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.Await;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The driver of {@link SupervisorPartitionIT}, run on the {@code control} host of a network the test made, on a
 * {@link SupervisorHaOnHosts} (a broker, HDFS, three ZooKeeper servers and two supervisors, each on its host); this
 * process plays the producers, the operator (manifests) and a consumer that answers every signal DONE, recording its
 * token header. Four faults, each checked here (an {@link AssertionError} exits 1; the report is written either way):
 * <ol>
 *   <li>the active isolated from everything: the standby takes over; after the heal the old one exits fenced out,
 *   its sealed journal unchanged, no signal of its token after the heal, the messages sent meanwhile done;</li>
 *   <li>the ZooKeeper server the active is connected to isolated (a minority): never two supervisors ready at once,
 *   every message done; whether the active kept its lease is reported (if not, it exited 75 and the standby took the
 *   next token);</li>
 *   <li>the active cut from every ZooKeeper server but not from the broker or HDFS: it fences itself out (its log)
 *   before the standby takes the next token (the standby's log), and no signal of its token arrives after the standby
 *   is ready;</li>
 *   <li>the ZooKeeper quorum lost (two servers stopped) and regained: the active stops by itself, both supervisors say
 *   on {@code /ready} that they wait for ZooKeeper, and once the quorum is back one takes the next token and the
 *   messages sent meanwhile are done.</li>
 * </ol>
 * Arguments: the network's description, the work folder, the report file.
 */
public final class SupervisorPartitionMain {
    /** The ZooKeeper session timeout: short for a quick test, long enough for a loaded 2-core machine. */
    static final Duration LEASE = Duration.ofSeconds(4);
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String TASK = "12345678.G";
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final HostNetwork net;
    private final Path work;
    private final ObjectNode report = Json.mapper().createObjectNode();
    private final List<Signal> signals = new CopyOnWriteArrayList<>();
    private final AtomicInteger datasets = new AtomicInteger();
    private final List<Supervisor> sups = new ArrayList<>();
    private SupervisorHaOnHosts c;
    private StompSender sender;
    private StompConnection consumer;
    private ZooKeeperEnsemble zk;

    /** A signal as the consumer got it: its dataset, id, the token header, when (nanoTime). */
    private record Signal(String dataset, String id, long token, long at) {
    }

    private SupervisorPartitionMain(HostNetwork net, Path work) {
        this.net = net;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        HostNetwork net = HostNetwork.attach(args[0]);
        Path work = Path.of(args[1]);
        SupervisorPartitionMain m = new SupervisorPartitionMain(net, work);
        int status = 0;
        try {
            m.run();
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            m.report.put("failure", String.valueOf(e));
            status = 1;
        } finally {
            Files.writeString(Path.of(args[2]), m.report.toPrettyString());
            m.stop();
        }
        System.out.println("report: " + m.report.toPrettyString());
        System.exit(status);
    }

    private void run() throws Exception {
        long t0 = System.nanoTime();
        c = SupervisorHaOnHosts.start(net, work, LEASE);
        zk = c.zooKeeper();
        StompSettings admin = c.brokerSettings(BrokerLogins.ADMIN);
        sender = new StompSender(admin);
        consumer = StompConnection.connect(admin);
        consumer.subscribe(Queues.CONSUMER, 10, new StompConnection.Listener() {
            @Override
            public void onMessage(StompMessage m) {
                answer(m);
                try {
                    consumer.ack(m);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot acknowledge signal " + m.messageId(), e);
                }
            }
        });
        Supervisor a = c.supervisor("a", net.host("supa"));
        sups.add(a);
        c.awaitReady(a);
        Supervisor b = c.supervisor("b", net.host("supb"));
        sups.add(b);
        c.awaitStandby(b);
        report.put("startMillis", (System.nanoTime() - t0) / 1_000_000);
        awaitDone(a, dataset(), dataset());

        Supervisor active = isolateTheActive(a, b);
        active = isolateItsZooKeeperServer(active, other(active));
        active = cutTheActiveFromZooKeeper(active, other(active));
        active = loseAndRegainTheQuorum(active, other(active));

        // Every message of the run done once: one selection (one signal id) per dataset whatever was re-sent.
        List<Integer> all = new ArrayList<>();
        for (int d = 0; d < datasets.get(); d++) {
            all.add(d);
        }
        awaitDone(active, all);
        Map<String, Set<String>> ids = signals.stream().collect(Collectors.groupingBy(Signal::dataset,
                Collectors.mapping(Signal::id, Collectors.toSet())));
        check(ids.size() == datasets.get(), "every dataset signalled: " + ids.keySet());
        ids.forEach((ds, set) -> check(set.size() == 1, ds + " signalled with two selections: " + set));
        report.put("datasets", datasets.get());
        report.put("signals", signals.size());
        report.put("totalMillis", (System.nanoTime() - t0) / 1_000_000);
    }

    private void stop() {
        if (consumer != null) {
            consumer.close();
        }
        if (sender != null) {
            sender.close();
        }
        if (c != null) {
            c.close();
        }
    }

    /** (a) The active isolated from every host: the standby takes over; healed, the old one does nothing. */
    private Supervisor isolateTheActive(Supervisor old, Supervisor standby) throws Exception {
        ObjectNode r = report.putObject("isolated");
        long token = c.token(old);
        long t0 = System.nanoTime();
        net.isolate(old.host());
        int d1 = dataset();
        int d2 = dataset();
        c.awaitReady(standby);
        r.put("takeoverMillis", (System.nanoTime() - t0) / 1_000_000);
        awaitDone(standby, d1, d2);
        check(c.token(standby) == token + 1, "the standby took token " + (token + 1) + ", has " + c.token(standby));
        String sealed = SupervisorHaOnHosts.JOURNAL + "/generation-" + token + ".sealed/" + Journal.FILE_NAME;
        long bytes = c.journalBytes(sealed);
        long healed = System.nanoTime();
        net.rejoin(old.host());
        int d3 = dataset(); // while the old one wakes to the partition's end: it must not take it
        int exit = c.awaitExit(old);
        r.put("oldExit", exit);
        check(exit == Leadership.EXIT_FENCED, "the isolated active exits fenced out after the heal, not " + exit);
        awaitDone(standby, d3);
        check(c.journalBytes(sealed) == bytes, "the old active journalled nothing after the heal: " + sealed + " "
                + bytes + " -> " + c.journalBytes(sealed) + " bytes");
        r.put("sealedJournalBytes", bytes);
        check(signals.stream().noneMatch(s -> s.at() > healed && s.token() == token),
                "no signal of token " + token + " after the heal");
        c.restart(old);
        return standby;
    }

    /**
     * (b) A minority of ZooKeeper isolated: the server the active's session is on. The client moves to another
     * server; never two supervisors ready at once, nothing lost.
     */
    private Supervisor isolateItsZooKeeperServer(Supervisor active, Supervisor standby) throws Exception {
        ObjectNode r = report.putObject("zookeeperMinority");
        long token = c.token(active);
        int server = serverOf(active);
        Host zkHost = zk.host(server);
        r.put("server", zkHost.name());
        Sampler sampler = Sampler.start(this, active, standby);
        long t0 = System.nanoTime();
        net.isolate(zkHost);
        int d1 = dataset();
        int d2 = dataset();
        // Held past the session timeout: a session that was going to expire has expired by then.
        Await.until("the isolation of " + zkHost.name() + " held for the session timeout and a supervisor ready",
                TIMEOUT, () -> System.nanoTime() - t0 > LEASE.plusSeconds(1).toNanos()
                        && (c.ready(active) || c.ready(standby)));
        // Kept: still active past the session timeout with a lease confirmed since (its watchdog fences a holder
        // whose lease went unconfirmed for two thirds of the session, even when idle).
        double age = c.leaseAgeSeconds(active);
        boolean kept = active.process().isAlive() && c.ready(active) && c.token(active) == token
                && age >= 0 && age < LEASE.toMillis() * 2 / 3 / 1000.0;
        r.put("leaseKept", kept);
        r.put("activeLeaseAgeSeconds", age);
        Supervisor now = kept ? active : standby;
        if (!kept) {
            int exit = c.awaitExit(active);
            r.put("oldExit", exit);
            check(exit == Leadership.EXIT_FENCED, "an active that lost its lease exits fenced out, not " + exit);
            c.awaitReady(standby);
            check(c.token(standby) == token + 1, "the standby took token " + (token + 1));
        }
        awaitDone(now, d1, d2);
        net.rejoin(zkHost);
        zk.awaitQuorum(TIMEOUT);
        sampler.stop();
        r.put("bothReadySamples", sampler.bothReady);
        r.put("samples", sampler.samples);
        check(sampler.bothReady == 0, "two supervisors ready at once in " + sampler.bothReady + " samples");
        if (!kept) {
            c.restart(active);
        }
        return now;
    }

    /**
     * (c) The active cut from every ZooKeeper server, still reaching the broker and HDFS: it must stop acting (its
     * own clock: two thirds of the session, it suspends) before the session expires and the standby's token is
     * issued; it exits fenced out once its suspension outlasts the session.
     */
    private Supervisor cutTheActiveFromZooKeeper(Supervisor old, Supervisor standby) throws Exception {
        ObjectNode r = report.putObject("cutFromZooKeeper");
        long token = c.token(old);
        Sampler sampler = Sampler.start(this, old, standby);
        LocalTime cutAt = LocalTime.now();
        for (int i = 0; i < zk.size(); i++) {
            net.cut(old.host(), zk.host(i));
        }
        int d1 = dataset();
        int d2 = dataset();
        c.awaitReady(standby);
        long newReady = System.nanoTime();
        int exit = c.awaitExit(old);
        sampler.stop();
        check(exit == Leadership.EXIT_FENCED, "the active cut from ZooKeeper exits fenced out, not " + exit);
        awaitDone(standby, d1, d2);
        for (int i = 0; i < zk.size(); i++) {
            net.heal(old.host(), zk.host(i));
        }
        // Both logs are written on this machine's clock: the old one's fence and the new one's token are ordered.
        // it stops acting when it suspends (decision 0048: two thirds of the session without a confirmation), and
        // exits fenced out a session timeout later, or when the heal tells it its session expired
        LocalTime stoppedAt = lastLogTime(old, " suspended: its lease");
        LocalTime fencedAt = lastLogTime(old, "is fenced out");
        LocalTime tookAt = lastLogTime(standby, "took token " + (token + 1));
        long stoppedMillis = Duration.between(cutAt, stoppedAt).toMillis();
        long tookMillis = Duration.between(cutAt, tookAt).toMillis();
        r.put("oldSuspendedMillis", stoppedMillis);
        r.put("oldFencedMillis", Duration.between(cutAt, fencedAt).toMillis());
        r.put("newTokenMillis", tookMillis);
        r.put("marginMillis", tookMillis - stoppedMillis);
        r.put("bothReadySamples", sampler.bothReady);
        check(stoppedAt.isBefore(tookAt), "the old active suspended itself (" + stoppedMillis + " ms after the cut)"
                + " before the standby took token " + (token + 1) + " (" + tookMillis + " ms)");
        check(sampler.bothReady == 0, "two supervisors ready at once in " + sampler.bothReady + " samples");
        check(c.token(standby) == token + 1, "the standby took token " + (token + 1));
        check(signals.stream().noneMatch(s -> s.at() > newReady && s.token() == token),
                "no signal of token " + token + " after the standby's token");
        c.restart(old);
        return standby;
    }

    /**
     * (d) The ZooKeeper quorum lost (two of the three servers stopped) and regained: the active stops by itself (its
     * lease can no longer be confirmed) and exits 75; started again it, and the standby, wait for ZooKeeper, saying so
     * on {@code /ready}; once the servers are back one of them takes the next token and carries on, nothing lost.
     */
    private Supervisor loseAndRegainTheQuorum(Supervisor old, Supervisor standby) throws Exception {
        ObjectNode r = report.putObject("quorumLost");
        long token = c.token(old);
        Sampler sampler = Sampler.start(this, old, standby);
        long t0 = System.nanoTime();
        zk.stopServer(0);
        zk.stopServer(1);
        int d1 = dataset();
        int d2 = dataset();
        int exit = c.awaitExit(old);
        r.put("oldStoppedMillis", (System.nanoTime() - t0) / 1_000_000);
        check(exit == Leadership.EXIT_FENCED, "the active without a quorum exits fenced out, not " + exit);
        old.process().start(); // as systemd would
        Await.until("both supervisors waiting for ZooKeeper on /ready", TIMEOUT, () -> waitingForZooKeeper(old)
                && waitingForZooKeeper(standby));
        long t1 = System.nanoTime();
        zk.startServer(0);
        zk.startServer(1);
        zk.awaitQuorum(TIMEOUT);
        Await.until("a supervisor active again", TIMEOUT, () -> c.ready(old) || c.ready(standby));
        r.put("activeAfterQuorumMillis", (System.nanoTime() - t1) / 1_000_000);
        Supervisor now = c.ready(old) ? old : standby;
        awaitDone(now, d1, d2);
        sampler.stop();
        r.put("bothReadySamples", sampler.bothReady);
        check(sampler.bothReady == 0, "two supervisors ready at once in " + sampler.bothReady + " samples");
        check(c.token(now) == token + 1, "the next token " + (token + 1) + " taken, not " + c.token(now));
        c.awaitStandby(other(now));
        return now;
    }

    private boolean waitingForZooKeeper(Supervisor s) {
        return s.process().isAlive() && c.getStatus(s, "/ready").map(b -> b.contains("waiting for ZooKeeper"))
                .orElse(false);
    }

    /** Polls both supervisors' {@code /ready} every 50 ms, counting the samples in which both answered 200. */
    private static final class Sampler {
        private final Thread thread;
        private volatile boolean stop;
        private volatile int bothReady;
        private volatile int samples;

        private Sampler(SupervisorPartitionMain m, Supervisor first, Supervisor second) {
            thread = new Thread(() -> {
                while (!stop) {
                    boolean a = m.c.ready(first);
                    boolean b = m.c.ready(second);
                    long now = System.nanoTime();
                    samples++;
                    bothReady += a && b ? 1 : 0;
                    Await.until("the next sample", Duration.ofSeconds(1), () -> System.nanoTime() - now
                            > 50_000_000L);
                }
            }, "ready-sampler");
        }

        static Sampler start(SupervisorPartitionMain m, Supervisor first, Supervisor second) {
            Sampler s = new Sampler(m, first, second);
            s.thread.start();
            return s;
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    /** The fake consumer: records the signal and reports it DONE with every expected event. */
    private void answer(StompMessage m) {
        try {
            ConsumerSignal s = Json.read(m.body(), ConsumerSignal.class);
            String token = m.headers().getOrDefault(ConsumerSignal.TOKEN_HEADER, "0");
            signals.add(new Signal(s.dataset(), s.signalId(), Long.parseLong(token), System.nanoTime()));
            sender.send(Queues.SUPERVISOR_CONTROL, Json.write(new ConsumerReport(ConsumerReport.TYPE, s.signalId(),
                    s.dataset(), "partition-consumer", ConsumerReport.DONE, "/ei/" + s.container() + "/"
                    + s.dataset() + ".parquet", s.expectedEvents(), s.expectedEvents(), 0, s.objects().size(), 1000,
                    10, null, 0, false)), Map.of());
        } catch (IOException e) {
            throw new IllegalStateException("cannot answer the signal " + m.messageId(), e);
        }
    }

    private Supervisor other(Supervisor s) {
        return sups.get(0) == s ? sups.get(1) : sups.get(0);
    }

    /** The ZooKeeper server whose connections include the supervisor's host. */
    private int serverOf(Supervisor s) {
        int[] found = {-1};
        Await.until("the ZooKeeper server of supervisor " + s.name(), TIMEOUT, () -> {
            for (int i = 0; i < zk.size(); i++) {
                if (zk.ask(i, "cons").contains("/" + s.host().address() + ":")) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Sends a one-file dataset's manifest and its producer's message; returns its number. */
    private int dataset() throws IOException {
        int d = datasets.getAndIncrement();
        String guid = String.format("7B3C%04d-0000-0000-0000-000000000002", d);
        sender.send(Queues.SUPERVISOR_CONTROL, Json.write(new DatasetManifest(DatasetManifest.TYPE, name(d),
                List.of(new DatasetManifest.ManifestFile(guid, 100)))), Map.of());
        ObjectKey key = ObjectKey.of(TASK, (4_000_000 + d) + ".1", String.format("%032x", 0xfeedL + d));
        ProducerInfo info = new ProducerInfo(1000, 5000, "1", key.taskID(), key.jobID(), 10, 20, name(d), 100, 100,
                1, key.uuid(), 30, "s3://rgw.example:7480/eventindex/" + key.key(), List.of(new GuidInfo(guid, 0,
                100, 100, 1, 2, "f838", "physics_Main", "data17_13TeV", Map.of("341000", new EventRange(1, 1000)))));
        sender.send(Queues.SUPERVISOR, Json.write(new ProducerMessage(ProducerMessage.TYPE_OBJECT_STORED,
                1_600_000_000_000L, "p" + d, info)), Map.of());
        return d;
    }

    private static String name(int d) {
        return String.format("data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 341_000 + d);
    }

    private void awaitDone(Supervisor s, int... ds) {
        awaitDone(s, java.util.Arrays.stream(ds).boxed().toList());
    }

    private void awaitDone(Supervisor s, List<Integer> ds) {
        for (int d : ds) {
            Await.until(name(d) + " DONE at supervisor " + s.name() + " (log " + s.log() + ")", TIMEOUT,
                    () -> c.get(s, "/datasets/" + name(d)).map(b -> b.contains("\"state\":\"DONE\""))
                            .orElse(false));
        }
    }

    /** The time of the last line of {@code s}'s log holding {@code text} (slf4j-simple's {@code HH:mm:ss.SSS}). */
    private static LocalTime lastLogTime(Supervisor s, String text) throws IOException {
        List<String> lines = Files.readAllLines(s.log()).stream().filter(l -> l.contains(text)
                && l.length() > 12 && l.charAt(2) == ':').toList();
        check(!lines.isEmpty(), "'" + text + "' in " + s.log());
        return LocalTime.parse(lines.get(lines.size() - 1).substring(0, 12), LOG_TIME);
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
