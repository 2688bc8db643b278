package org.eventindex.testing.hosts;

import static java.util.Objects.requireNonNull;

import org.eventindex.testing.Prerequisites;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hosts for a test: one Linux network namespace per host, each with its own address ({@code 10.213.0.N/24} on its
 * {@code eth0}) and its loopback up, joined by a bridge that lives in a namespace of its own, so that no address, link
 * or rule is added to the machine's own namespace: everything is inside namespaces this network made, and
 * {@link #close()} deletes them. Needs root, {@code ip} (iproute2) and {@code nft} (Debian's {@code nftables}).
 * <pre>
 * try (HostNetwork net = HostNetwork.create("broker", "consumer")) {
 *     Host broker = net.host("broker");
 *     ChildJvm.main(BrokerMain.class).on(broker).args(...)...;   // runs with ip netns exec
 *     net.cut(net.host("consumer"), broker);                      // both directions
 *     net.healAll();
 * }
 * </pre>
 *
 * <p><b>Names.</b> Namespaces are named {@code eih-PID-SEQ-HOST} (the bridge's {@code eih-PID-SEQ}), PID being the
 * process that made them, so parallel runs never clash, and {@link #sweep()} (called by {@link #create}) deletes what
 * runs that died left behind: the namespaces of a PID that no longer runs. The addresses are the same in every run:
 * each run's hosts reach only their own bridge.
 *
 * <p><b>Partitions.</b> {@link #cut}, {@link #isolate} and their heals are nftables rules in the bridge's namespace (a
 * {@code bridge} family table filtering the bridge's forward hook by the ports of the hosts): the switch between the
 * hosts drops every frame but ARP between the two hosts cut (or to and from the isolated host), in both directions.
 * Nothing is changed inside the hosts, so their processes see no error, only silence, as behind a real partition: a
 * connect times out, an established connection stalls and retransmits, and nobody gets a reset or an ICMP error
 * (ARP still passes, so neighbours stay resolved and a send never fails at once with "no route to host"). When the
 * partition heals, retransmissions get through and stalled connections carry on. {@code ip link set ... down} would
 * fail sends at once instead, and {@code tc netem} is not in every kernel. The rules are rewritten as a whole in one
 * nftables transaction at each change, from this object's state: one process drives the partitions of a network.
 *
 * <p><b>Another process.</b> {@link #describe()} and {@link #attach(String)} hand the network to a child process (a
 * test's driver running on a control host), which may start processes on the hosts and partition them; only the
 * creating process deletes the network.
 */
public final class HostNetwork implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostNetwork.class);
    /** The prefix of every namespace this class makes (and the only ones {@link #sweep()} looks at). */
    public static final String PREFIX = "eih-";
    private static final Pattern OURS = Pattern.compile("^" + PREFIX + "(\\d+)-(\\d+)(?:-[a-z][a-z0-9]*)?$");
    private static final Pattern HOST_NAME = Pattern.compile("[a-z][a-z0-9]{0,15}");
    private static final String SUBNET = "10.213.0.";
    private static final String TABLE = "eih";
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final String bridgeNamespace;
    private final Map<String, Host> hosts;
    private final boolean owner;
    private final Set<Set<String>> cuts = new LinkedHashSet<>();
    private final Set<String> isolated = new LinkedHashSet<>();
    private final Thread shutdownHook;
    private boolean closed;

    private HostNetwork(String bridgeNamespace, Map<String, Host> hosts, boolean owner) {
        this.bridgeNamespace = bridgeNamespace;
        this.hosts = hosts;
        this.owner = owner;
        this.shutdownHook = owner ? new Thread(this::close, "host-network-delete") : null;
    }

    /** What this machine lacks to make hosts (root, {@code ip}, {@code nft}); empty when nothing. */
    public static List<String> missing() {
        List<String> missing = new ArrayList<>();
        if (!"root".equals(System.getProperty("user.name"))) {
            missing.add("root (network namespaces are made as root; running as " + System.getProperty("user.name")
                    + ")");
        }
        for (String tool : List.of("ip:iproute2", "nft:nftables", "bash:bash", "timeout:coreutils")) {
            String binary = tool.substring(0, tool.indexOf(':'));
            if (!onPath(binary)) {
                missing.add(binary + " (apt-get install -y " + tool.substring(tool.indexOf(':') + 1) + ")");
            }
        }
        return missing;
    }

    /**
     * Fails a CI run (skips elsewhere) when {@link #missing()} is not empty: a test on hosts is never skipped quietly
     * where it is meant to run.
     */
    public static void requireSupported() {
        List<String> missing = missing();
        Prerequisites.require(missing.isEmpty(), "hosts as network namespaces need " + String.join(", ", missing));
    }

    private static boolean onPath(String binary) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, binary))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", binary)) || Files.isExecutable(Path.of("/sbin", binary));
    }

    /**
     * Makes a host per name (lower-case letters and digits, starting with a letter), in order, with addresses
     * {@code 10.213.0.1}, {@code .2}, ...; first deletes the leftovers of dead runs ({@link #sweep()}).
     *
     * @throws IllegalStateException naming the command that failed (what was made is deleted again)
     */
    public static HostNetwork create(String... hostNames) {
        return create(List.of(hostNames));
    }

    /** {@link #create(String...)} with the names as a list. */
    public static HostNetwork create(List<String> hostNames) {
        requireNonNull(hostNames, "hostNames is null");
        if (hostNames.isEmpty() || hostNames.size() > 250) {
            throw new IllegalArgumentException("a host network has 1..250 hosts: " + hostNames.size());
        }
        for (String n : hostNames) {
            if (!HOST_NAME.matcher(n).matches()) {
                throw new IllegalArgumentException("host name must be a lower-case letter then up to 15 letters or"
                        + " digits: '" + n + "'");
            }
        }
        if (new LinkedHashSet<>(hostNames).size() != hostNames.size()) {
            throw new IllegalArgumentException("host names must be distinct: " + hostNames);
        }
        sweep();
        String base = PREFIX + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
        Map<String, Host> hosts = new LinkedHashMap<>();
        for (int i = 0; i < hostNames.size(); i++) {
            String n = hostNames.get(i);
            hosts.put(n, new Host(n, base + "-" + n, SUBNET + (i + 1), "p" + (i + 1)));
        }
        HostNetwork net = new HostNetwork(base, hosts, true);
        Runtime.getRuntime().addShutdownHook(net.shutdownHook);
        try {
            net.build();
            return net;
        } catch (RuntimeException e) {
            net.close();
            throw e;
        }
    }

    private void build() {
        ip("netns", "add", bridgeNamespace);
        ip("-n", bridgeNamespace, "link", "set", "lo", "up");
        ip("-n", bridgeNamespace, "link", "add", "br0", "type", "bridge");
        ip("-n", bridgeNamespace, "link", "set", "br0", "up");
        for (Host h : hosts.values()) {
            String ns = h.namespace().orElseThrow();
            ip("netns", "add", ns);
            // Both ends made straight inside their namespaces: no link ever appears in the machine's namespace.
            ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", h.bridgePort(), "netns",
                    bridgeNamespace);
            ip("-n", bridgeNamespace, "link", "set", h.bridgePort(), "master", "br0");
            ip("-n", bridgeNamespace, "link", "set", h.bridgePort(), "up");
            ip("-n", ns, "addr", "add", h.address() + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
            ip("-n", ns, "link", "set", "lo", "up");
        }
        applyRules();
        LOG.info("host network {}: {}", bridgeNamespace, hosts.values());
    }

    /**
     * The network as one line for {@link #attach(String)} in another process (e.g. an argument of a child JVM).
     */
    public String describe() {
        StringBuilder sb = new StringBuilder(bridgeNamespace);
        hosts.values().forEach(h -> sb.append(',').append(h.describe()));
        return sb.toString();
    }

    /**
     * The network {@link #describe()} gave, in another process: its hosts, and its partitions (which this process
     * then drives); {@link #close()} leaves the network in place (its creator deletes it).
     */
    public static HostNetwork attach(String description) {
        String[] fields = requireNonNull(description, "description is null").split(",");
        if (fields.length < 2 || !OURS.matcher(fields[0]).matches()) {
            throw new IllegalArgumentException("not a host network description: " + description);
        }
        Map<String, Host> hosts = new LinkedHashMap<>();
        for (int i = 1; i < fields.length; i++) {
            Host h = Host.parse(fields[i]);
            hosts.put(h.name(), h);
        }
        return new HostNetwork(fields[0], hosts, false);
    }

    /** The host named {@code name}. */
    public Host host(String name) {
        Host h = hosts.get(requireNonNull(name, "name is null"));
        if (h == null) {
            throw new IllegalArgumentException("no host '" + name + "' in network " + bridgeNamespace + "; hosts: "
                    + hosts.keySet());
        }
        return h;
    }

    /** Every host, in creation order. */
    public List<Host> hosts() {
        return List.copyOf(hosts.values());
    }

    /** The namespace holding the bridge (and the partition rules). */
    public String bridgeNamespace() {
        return bridgeNamespace;
    }

    /** Cuts {@code a} from {@code b} in both directions (every other path of each stays up). */
    public synchronized void cut(Host a, Host b) {
        requireMember(a);
        requireMember(b);
        if (a.name().equals(b.name())) {
            throw new IllegalArgumentException("cannot cut " + a + " from itself");
        }
        cuts.add(Set.of(a.name(), b.name()));
        applyRules();
    }

    /** Ends the cut between {@code a} and {@code b} (an isolation of either stays). */
    public synchronized void heal(Host a, Host b) {
        requireMember(a);
        requireMember(b);
        cuts.remove(Set.of(a.name(), b.name()));
        applyRules();
    }

    /** Cuts {@code h} from every other host, in both directions (its loopback keeps working). */
    public synchronized void isolate(Host h) {
        requireMember(h);
        isolated.add(h.name());
        applyRules();
    }

    /** Ends the isolation of {@code h} (its cuts from chosen hosts stay). */
    public synchronized void rejoin(Host h) {
        requireMember(h);
        isolated.remove(h.name());
        applyRules();
    }

    /** Ends every partition. */
    public synchronized void healAll() {
        cuts.clear();
        isolated.clear();
        applyRules();
    }

    /** The partitions in force, for a log line: {@code cut a|b}, {@code isolated h}. */
    public synchronized List<String> partitions() {
        List<String> out = new ArrayList<>();
        cuts.forEach(c -> out.add("cut " + String.join("|", c.stream().sorted().toList())));
        isolated.forEach(h -> out.add("isolated " + h));
        return out;
    }

    private void requireMember(Host h) {
        requireNonNull(h, "host is null");
        if (hosts.get(h.name()) == null || !hosts.get(h.name()).address().equals(h.address())) {
            throw new IllegalArgumentException(h + " is not a host of network " + bridgeNamespace);
        }
    }

    /** Rewrites the bridge's filter from the state, in one nftables transaction. */
    private void applyRules() {
        StringBuilder rules = new StringBuilder();
        for (Set<String> cut : cuts) {
            List<String> two = List.copyOf(cut);
            String a = host(two.get(0)).bridgePort();
            String b = host(two.get(1)).bridgePort();
            drop(rules, "iifname \"" + a + "\" oifname \"" + b + "\"");
            drop(rules, "iifname \"" + b + "\" oifname \"" + a + "\"");
        }
        for (String h : isolated) {
            String p = host(h).bridgePort();
            drop(rules, "iifname \"" + p + "\"");
            drop(rules, "oifname \"" + p + "\"");
        }
        // "table ... {}" first makes the flush valid on the first call; the chain's declaration is idempotent.
        String script = "table bridge " + TABLE + " {}\nflush table bridge " + TABLE + "\ntable bridge " + TABLE
                + " {\n  chain partitions {\n    type filter hook forward priority 0; policy accept;\n" + rules
                + "  }\n}\n";
        Result r = exec(List.of("ip", "netns", "exec", bridgeNamespace, "nft", "-f", "-"), script, COMMAND_TIMEOUT);
        if (r.exitCode() != 0) {
            throw new IllegalStateException("nft in namespace " + bridgeNamespace + " refused the partition rules"
                    + " (exit " + r.exitCode() + "): " + r.output() + "\nrules:\n" + script);
        }
    }

    /** Every frame but ARP that {@code match} selects is dropped. */
    private static void drop(StringBuilder rules, String match) {
        rules.append("    ").append(match).append(" ether type != arp drop\n");
    }

    /**
     * Deletes every namespace of this network (its creator only; an attached network is left in place), after killing
     * (SIGKILL) whatever still runs on its hosts: stop the processes cleanly first, this is the backstop that leaves
     * nothing running in a namespace without a name. Idempotent.
     *
     * @throws IllegalStateException naming the namespaces that could not be deleted
     */
    @Override
    public synchronized void close() {
        if (closed || !owner) {
            closed = true;
            return;
        }
        closed = true;
        List<String> failed = new ArrayList<>();
        for (String ns : ownNamespaces()) {
            killProcessesIn(ns);
            Result r = exec(List.of("ip", "netns", "delete", ns), null, COMMAND_TIMEOUT);
            if (r.exitCode() != 0) {
                failed.add(ns + ": " + r.output().strip());
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // close() is running from the hook itself
        }
        if (!failed.isEmpty()) {
            throw new IllegalStateException("could not delete the namespaces of host network " + bridgeNamespace
                    + ": " + failed);
        }
    }

    /** The namespaces of this network that exist now (the hosts' and the bridge's). */
    public List<String> ownNamespaces() {
        return namespaces().stream().filter(ns -> ns.equals(bridgeNamespace) || ns.startsWith(bridgeNamespace + "-"))
                .toList();
    }

    /** Every network namespace with a name on this machine ({@code ip netns list}). */
    public static List<String> namespaces() {
        Result r = exec(List.of("ip", "netns", "list"), null, COMMAND_TIMEOUT);
        if (r.exitCode() != 0) {
            throw new IllegalStateException("ip netns list failed (exit " + r.exitCode() + "): " + r.output());
        }
        List<String> out = new ArrayList<>();
        for (String line : r.output().split("\n")) {
            String name = line.strip().split("\\s+")[0];
            if (!name.isEmpty()) {
                out.add(name);
            }
        }
        return out;
    }

    /**
     * Deletes the namespaces of host networks whose creating process no longer runs (a test killed before its
     * {@link #close()}); those of live processes, and every namespace without this class's prefix, are left alone.
     *
     * @return the namespaces deleted
     */
    public static List<String> sweep() {
        List<String> deleted = new ArrayList<>();
        for (String ns : namespaces()) {
            Matcher m = OURS.matcher(ns);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).map(p -> !p.isAlive()).orElse(true)) {
                killProcessesIn(ns);
                Result r = exec(List.of("ip", "netns", "delete", ns), null, COMMAND_TIMEOUT);
                if (r.exitCode() == 0) {
                    deleted.add(ns);
                } else {
                    LOG.warn("cannot delete the leftover namespace {}: {}", ns, r.output().strip());
                }
            }
        }
        if (!deleted.isEmpty()) {
            LOG.info("deleted the namespaces of dead runs: {}", deleted);
        }
        return deleted;
    }

    /** SIGKILLs every process in namespace {@code ns} ({@code ip netns pids}) and waits for each to be gone. */
    private static void killProcessesIn(String ns) {
        Result r = exec(List.of("ip", "netns", "pids", ns), null, COMMAND_TIMEOUT);
        for (String line : r.exitCode() == 0 ? r.output().split("\n") : new String[0]) {
            if (line.strip().matches("\\d+")) {
                ProcessHandle.of(Long.parseLong(line.strip())).ifPresent(p -> {
                    LOG.warn("killing process {} ({}) still running in namespace {}", p.pid(),
                            p.info().command().orElse("?"), ns);
                    p.destroyForcibly();
                    p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> p).join();
                });
            }
        }
    }

    @Override
    public String toString() {
        return "host network " + bridgeNamespace + " " + hosts.values();
    }

    private static void ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        Result r = exec(cmd, null, COMMAND_TIMEOUT);
        if (r.exitCode() != 0) {
            throw new IllegalStateException("'" + String.join(" ", cmd) + "' failed (exit " + r.exitCode() + "): "
                    + r.output().strip());
        }
    }

    /** The exit code and output (stdout and stderr together) of a command. */
    record Result(int exitCode, String output) {
    }

    /** Runs {@code command} with {@code stdin} (or none), killing it after {@code timeout} (exit -1). */
    static Result exec(List<String> command, String stdin, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
                try {
                    return p.getInputStream().readAllBytes();
                } catch (IOException e) {
                    return ("(output unreadable: " + e + ")").getBytes(StandardCharsets.UTF_8);
                }
            });
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor();
                return new Result(-1, "(killed after " + timeout + ") " + new String(out.join(), StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), new String(out.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run '" + String.join(" ", command) + "'", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running '" + String.join(" ", command) + "'", e);
        }
    }
}
