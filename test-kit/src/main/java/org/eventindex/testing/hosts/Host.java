package org.eventindex.testing.hosts;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One host a test runs a role on: a Linux network namespace of a {@link HostNetwork} with its own address on the
 * network's bridge and its own loopback, or {@link #local()} (this machine's namespace, 127.0.0.1) for a harness run
 * without hosts. A process runs on a host when it is started with {@link #command(List)}: {@code ip netns exec NS
 * COMMAND}, which execs the command, so the started process is the command itself (its pid is the one to signal).
 * Root may start a process on any host from any namespace.
 */
public final class Host {
    private static final Host LOCAL = new Host("local", null, "127.0.0.1", null);

    private final String name;
    private final String namespace;
    private final String address;
    private final String bridgePort;

    Host(String name, String namespace, String address, String bridgePort) {
        this.name = requireNonNull(name, "name is null");
        this.namespace = namespace;
        this.address = requireNonNull(address, "address is null");
        this.bridgePort = bridgePort;
    }

    /** This machine's own namespace: address 127.0.0.1, commands run unchanged. */
    public static Host local() {
        return LOCAL;
    }

    /** The host's name in its network ({@code broker}, {@code consumer}, ...). */
    public String name() {
        return name;
    }

    /** The address the host's processes bind to and are reached at (IPv4, without a port). */
    public String address() {
        return address;
    }

    /** {@code address:port}. */
    public String endpoint(int port) {
        return address + ":" + port;
    }

    /** The network namespace; empty for {@link #local()}. */
    public Optional<String> namespace() {
        return Optional.ofNullable(namespace);
    }

    public boolean isLocal() {
        return namespace == null;
    }

    /** The host's port on the network's bridge (in the bridge's namespace), which partitions filter. */
    String bridgePort() {
        return bridgePort;
    }

    /** {@code command} run on this host: {@code ip netns exec NS} before it (nothing for {@link #local()}). */
    public List<String> command(List<String> command) {
        requireNonNull(command, "command is null");
        if (namespace == null) {
            return List.copyOf(command);
        }
        List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        out.addAll(command);
        return out;
    }

    /** What a TCP connect from a host to an address found. */
    public enum Reach {
        /** The connection was accepted. */
        CONNECTED,
        /** Refused, unreachable or reset at once: the peer (or the path to it) answered. */
        REFUSED,
        /** No answer within the timeout: what a partition looks like. */
        TIMED_OUT
    }

    /**
     * Tries one TCP connection from this host to {@code address:port} (bash's {@code /dev/tcp} under
     * {@code timeout}, run on this host), giving up after {@code timeout}.
     */
    public Reach probe(String address, int port, Duration timeout) {
        requireNonNull(address, "address is null");
        String seconds = String.format(Locale.ROOT, "%.3f", requireNonNull(timeout, "timeout is null").toMillis()
                / 1000.0);
        HostNetwork.Result r = HostNetwork.exec(command(List.of("timeout", seconds, "bash", "-c",
                "exec 3<>/dev/tcp/$0/$1", address, Integer.toString(port))), null, timeout.plusSeconds(30));
        return switch (r.exitCode()) {
            case 0 -> Reach.CONNECTED;
            case 124 -> Reach.TIMED_OUT;
            default -> Reach.REFUSED;
        };
    }

    /** {@code name:namespace:address:bridge-port}, one field of {@link HostNetwork#describe()}. */
    String describe() {
        return name + ":" + namespace + ":" + address + ":" + bridgePort;
    }

    static Host parse(String field) {
        String[] f = field.split(":");
        if (f.length != 4) {
            throw new IllegalArgumentException("not a host description (name:namespace:address:port): " + field);
        }
        return new Host(f[0], f[1], f[2], f[3]);
    }

    @Override
    public String toString() {
        return namespace == null ? name + " (" + address + ")" : name + " (" + address + ", netns " + namespace + ")";
    }
}
