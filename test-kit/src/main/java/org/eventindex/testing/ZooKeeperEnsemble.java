package org.eventindex.testing;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A ZooKeeper ensemble of real servers, on ports from {@link Ports#freeForRestart} (a stopped server starts again on
 * its ports), its data under a test's folder, in one of two forms:
 * <ul>
 *   <li>{@link #start(Path, int)}: every server in this JVM (Curator's {@link TestingCluster}: each a full quorum
 *   peer; one can be stopped and started again); needs {@code curator-test} on the class path;</li>
 *   <li>{@link #startProcesses(Path, List)}: each server its own JVM ({@code QuorumPeerMain}, from the
 *   {@code zookeeper} jar on this JVM's class path), on a {@link Host} of its own (a network namespace, so that a
 *   partition can cut one server off) or on {@link Host#local()}, bound to the host's address; one server can be
 *   stopped, started again, paused and resumed.</li>
 * </ul>
 * Both serve on {@link #connectString()}. The process form is checked with ZooKeeper's {@code srvr} command, so the
 * process using it must reach the hosts' addresses (run on a host of the same network, as a test's driver does).
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
    /** The servers' tick: a session timeout is bounded to 2 to 20 ticks. */
    public static final int TICK_MILLIS = 500;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private final TestingCluster cluster;
    /** In this JVM: the servers stopped by {@link #stopServer} and not started again. */
    private final java.util.Set<Integer> stoppedInJvm = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final List<ServerProcess> processes;
    private final Duration startTime;

    private ZooKeeperEnsemble(TestingCluster cluster, List<ServerProcess> processes, Duration startTime) {
        this.cluster = cluster;
        this.processes = processes;
        this.startTime = startTime;
    }

    /** Starts {@code servers} servers in this JVM (3 for a quorum that survives one down); waits until they serve. */
    public static ZooKeeperEnsemble start(Path dir, int servers) {
        requireNonNull(dir, "dir is null");
        long t0 = System.nanoTime();
        try {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int i = 1; i <= servers; i++) {
                Path data = Files.createDirectories(dir.toAbsolutePath().resolve("zk" + i));
                // a 500 ms tick: sessions may be as short as 1 s (2 ticks), so that tests of a takeover are quick
                specs.add(new InstanceSpec(data.toFile(), Ports.freeForRestart(), Ports.freeForRestart(),
                        Ports.freeForRestart(), true, i, TICK_MILLIS, -1));
            }
            TestingCluster cluster = new TestingCluster(specs);
            cluster.start();
            return new ZooKeeperEnsemble(cluster, null, Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException e) {
            throw new UncheckedIOException("ZooKeeper ensemble under " + dir + " did not start", e);
        } catch (Exception e) {
            throw new IllegalStateException("ZooKeeper ensemble under " + dir + " did not start: " + e, e);
        }
    }

    /**
     * Starts one server per host, each its own JVM on its host bound to the host's address (server {@code i} on
     * {@code hosts.get(i)}; the same host may be given twice, {@link Host#local()} for each on loopback), and waits
     * until every one serves in a quorum (one leader, the others following). Logs in {@code dir/zkN.log}.
     */
    public static ZooKeeperEnsemble startProcesses(Path dir, List<Host> hosts) {
        requireNonNull(dir, "dir is null");
        if (requireNonNull(hosts, "hosts is null").isEmpty()) {
            throw new IllegalArgumentException("a ZooKeeper ensemble needs at least one server");
        }
        long t0 = System.nanoTime();
        List<ServerProcess> servers = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
            servers.add(new ServerProcess(i + 1, hosts.get(i), dir.toAbsolutePath().resolve("zk" + (i + 1)),
                    Ports.freeForRestart(), Ports.freeForRestart(), Ports.freeForRestart()));
        }
        ZooKeeperEnsemble e = new ZooKeeperEnsemble(null, servers, Duration.ZERO);
        try {
            String peers = servers.stream().map(ServerProcess::peerLine).collect(Collectors.joining());
            for (ServerProcess s : servers) {
                s.configure(peers);
                s.start();
            }
            e.awaitQuorum(START_TIMEOUT);
            return new ZooKeeperEnsemble(null, servers, Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException ex) {
            e.close();
            throw new UncheckedIOException("ZooKeeper ensemble under " + dir + " did not start", ex);
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
    }

    /** {@code host1:p1,host2:p2,...} (127.0.0.1 for servers in this JVM or on {@link Host#local()}). */
    public String connectString() {
        if (cluster != null) {
            return cluster.getConnectString();
        }
        return processes.stream().map(s -> s.host.endpoint(s.clientPort)).collect(Collectors.joining(","));
    }

    /** The number of servers. */
    public int size() {
        return cluster != null ? cluster.getInstances().size() : processes.size();
    }

    /** Stops server {@code i} (0-based; a process with SIGKILL); the others keep the quorum while a majority is up. */
    public void stopServer(int i) {
        if (cluster != null) {
            try {
                cluster.killServer(cluster.getInstances().stream().toList().get(i));
                stoppedInJvm.add(i);
            } catch (Exception e) {
                throw new IllegalStateException("could not stop ZooKeeper server " + i + ": " + e, e);
            }
            return;
        }
        process(i).kill();
    }

    /** Starts server {@code i} (0-based) again after {@link #stopServer}, on its data, ports (and host). */
    public void startServer(int i) {
        if (cluster != null) {
            try {
                cluster.restartServer(cluster.getInstances().stream().toList().get(i));
                stoppedInJvm.remove(i);
            } catch (Exception e) {
                throw new IllegalStateException("could not start ZooKeeper server " + i + " again: " + e, e);
            }
            return;
        }
        try {
            process(i).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start ZooKeeper server " + i + " again", e);
        }
    }

    /**
     * Freezes server {@code i} (SIGSTOP): it holds its connections and answers nothing, as a hung host would. Returns
     * once the kernel shows the process stopped ({@code /proc/PID/stat}).
     */
    public void pauseServer(int i) {
        ServerProcess s = process(i);
        s.signal("STOP");
        Await.until("ZooKeeper server " + (i + 1) + " stopped", Duration.ofSeconds(30), () -> s.stopped());
    }

    /** Wakes server {@code i} after {@link #pauseServer}. */
    public void resumeServer(int i) {
        ServerProcess s = process(i);
        s.signal("CONT");
        Await.until("ZooKeeper server " + (i + 1) + " running", Duration.ofSeconds(30), () -> !s.stopped());
    }

    /** The host server {@code i} runs on. */
    public Host host(int i) {
        return process(i).host;
    }

    /** The client port of server {@code i}. */
    public int clientPort(int i) {
        return cluster != null ? cluster.getInstances().stream().toList().get(i).getPort() : process(i).clientPort;
    }

    /**
     * The answer of server {@code i} to a four-letter command ({@code srvr}, {@code cons}), "" when it does not answer
     * within a second.
     */
    public String ask(int i, String command) {
        InetSocketAddress address = new InetSocketAddress(cluster != null ? "127.0.0.1" : process(i).host.address(),
                clientPort(i));
        try (Socket socket = new Socket()) {
            socket.connect(address, 1000);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Server {@code i}'s {@code Mode:} line ({@code leader}, {@code follower}), "" when it serves in no quorum. */
    public String mode(int i) {
        for (String line : ask(i, "srvr").split("\n")) {
            if (line.startsWith("Mode: ")) {
                return line.substring("Mode: ".length()).strip();
            }
        }
        return "";
    }

    /** Waits until every running server serves in a quorum with exactly one leader. */
    public void awaitQuorum(Duration timeout) {
        if (cluster != null) {
            Await.until("ZooKeeper servers " + connectString() + " in a quorum", timeout, () -> {
                int leaders = 0;
                for (int i = 0; i < size(); i++) {
                    if (stoppedInJvm.contains(i)) {
                        continue;
                    }
                    String m = mode(i);
                    if (m.isEmpty()) {
                        return false;
                    }
                    leaders += "leader".equals(m) ? 1 : 0;
                }
                return leaders == 1;
            });
            return;
        }
        Await.until("ZooKeeper servers " + connectString() + " in a quorum (logs " + processes.get(0).dir.getParent()
                + "/zk*.log)", timeout, () -> {
                    int leaders = 0;
                    for (int i = 0; i < processes.size(); i++) {
                        ServerProcess s = processes.get(i);
                        if (s.process == null || !s.up) {
                            continue;
                        }
                        if (!s.process.isAlive()) {
                            throw new IllegalStateException("ZooKeeper server " + s.id + " exited ("
                                    + s.process.exitValue() + "); log " + s.log());
                        }
                        String m = mode(i);
                        if (m.isEmpty()) {
                            return false;
                        }
                        leaders += "leader".equals(m) ? 1 : 0;
                    }
                    return leaders == 1;
                });
    }

    private ServerProcess process(int i) {
        if (processes == null) {
            throw new UnsupportedOperationException("the servers run in this JVM (start); startProcesses runs each"
                    + " as a process that can be paused and started again");
        }
        return processes.get(i);
    }

    /** Wall time {@link #start} took. */
    public Duration startTime() {
        return startTime;
    }

    @Override
    public void close() {
        if (cluster != null) {
            try {
                cluster.close();
            } catch (IOException e) {
                throw new UncheckedIOException("ZooKeeper ensemble did not stop", e);
            }
            return;
        }
        processes.forEach(ServerProcess::kill);
    }

    /** One server as a process: its {@code zoo.cfg} and {@code myid} under its folder, its output in a log. */
    private static final class ServerProcess {
        private final int id;
        private final Host host;
        private final Path dir;
        private final int clientPort;
        private final int quorumPort;
        private final int electionPort;
        private Process process;
        /** Started and not stopped since. */
        private volatile boolean up;

        ServerProcess(int id, Host host, Path dir, int clientPort, int quorumPort, int electionPort) {
            this.id = id;
            this.host = requireNonNull(host, "host is null");
            this.dir = dir;
            this.clientPort = clientPort;
            this.quorumPort = quorumPort;
            this.electionPort = electionPort;
        }

        String peerLine() {
            return "server." + id + "=" + host.address() + ":" + quorumPort + ":" + electionPort + "\n";
        }

        void configure(String peers) throws IOException {
            Path data = Files.createDirectories(dir.resolve("data"));
            Files.writeString(data.resolve("myid"), id + "\n");
            // A 500 ms tick (sessions of 1 to 10 s); no admin HTTP server (it would need a port of its own); srvr
            // and cons for the tests' checks.
            Files.writeString(dir.resolve("zoo.cfg"), "tickTime=" + TICK_MILLIS + "\ninitLimit=20\nsyncLimit=4\n"
                    + "dataDir=" + data + "\nclientPort=" + clientPort + "\nclientPortAddress=" + host.address()
                    + "\nadmin.enableServer=false\n4lw.commands.whitelist=srvr,cons\nquorumListenOnAllIPs=false\n"
                    + "electionPortBindRetry=0\n" + peers);
        }

        synchronized void start() throws IOException {
            if (process != null && process.isAlive()) {
                throw new IllegalStateException("ZooKeeper server " + id + " is already running (pid "
                        + process.pid() + ")");
            }
            process = ChildJvm.main("org.apache.zookeeper.server.quorum.QuorumPeerMain",
                            System.getProperty("java.class.path")).heap("128m").quickStart().daemon()
                    .options("-Dzookeeper.jmx.log4j.disable=true")
                    .args(dir.resolve("zoo.cfg").toString()).on(host).builder().redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile())).start();
            up = true;
        }

        Path log() {
            return dir.resolveSibling("zk" + id + ".log");
        }

        synchronized void signal(String signal) {
            if (process == null || !process.isAlive()) {
                throw new IllegalStateException("ZooKeeper server " + id + " is not running: cannot send SIG"
                        + signal);
            }
            try {
                Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                        .redirectErrorStream(true).start();
                if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                    throw new IllegalStateException("kill -" + signal + " of ZooKeeper server " + id + " failed");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run kill -" + signal + " for ZooKeeper server " + id, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while signalling ZooKeeper server " + id, e);
            }
        }

        /** Whether the process is in the stopped state ({@code T} in {@code /proc/PID/stat}). */
        boolean stopped() {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
                return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
            } catch (IOException e) {
                return false;
            }
        }

        synchronized void kill() {
            up = false;
            if (process == null || !process.isAlive()) {
                return;
            }
            signal("CONT"); // a paused process dies of SIGKILL too, but its parent is told only once it ran again
            process.destroyForcibly();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("ZooKeeper server " + id + " (pid " + process.pid()
                            + ") did not exit after SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping ZooKeeper server " + id, e);
            }
        }
    }
}
