package org.eventindex.testing.hosts;

import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.Ports;
import org.eventindex.testing.hosts.Host.Reach;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hosts as network namespaces, on the real kernel (root, {@code ip}, {@code nft}; with CI set a missing one fails the
 * test): hosts reach each other on their own addresses, a cut drops the traffic between two hosts both ways (a
 * connect times out, an established connection stalls without an error) and its heal restores it (the same
 * connection carries on), an isolated host reaches nobody and nobody reaches it, and nothing is left behind: no
 * namespace after {@code close()}, none of a dead run after {@code sweep()}, never an address or link in the machine's
 * own namespace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostNetworkTest {
    /** For a probe that must time out: short, the test waits it out. */
    private static final Duration SILENCE = Duration.ofMillis(1500);
    /** For a probe that must be answered: long, it returns at the answer (a loaded machine starts bash slowly). */
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    static Path logs;
    private String rootLinksBefore;
    private HostNetwork net;
    private Host a;
    private Host b;
    private Host c;
    private Process server;
    private int port;

    @BeforeAll
    void hosts() throws Exception {
        HostNetwork.requireSupported();
        rootLinksBefore = rootNamespace("link");
        net = HostNetwork.create("alpha", "beta", "gamma");
        a = net.host("alpha");
        b = net.host("beta");
        c = net.host("gamma");
        port = Ports.free();
        Path log = logs.resolve("server.log");
        server = ChildJvm.main(EchoMain.class).quickStart().on(a).args("serve", a.address(), Integer.toString(port))
                .start(log);
        Await.until("the echo server listening on " + a, WAIT, () -> read(log).contains("listening"));
    }

    @AfterAll
    void deleteHosts() throws Exception {
        if (server != null) {
            server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (net != null) {
            net.close();
            assertEquals(List.of(), net.ownNamespaces(), "namespaces left after close()");
        }
    }

    @Test
    void hostsHaveTheirOwnAddressesAndNothingIsAddedToTheMachinesNamespace() throws Exception {
        assertEquals(List.of("10.213.0.1", "10.213.0.2", "10.213.0.3"), net.hosts().stream().map(Host::address)
                .toList());
        assertEquals(4, net.ownNamespaces().size(), "three hosts and the bridge: " + net.ownNamespaces());
        assertTrue(net.ownNamespaces().stream().allMatch(ns -> ns.startsWith(HostNetwork.PREFIX
                + ProcessHandle.current().pid() + "-")), net.ownNamespaces().toString());
        assertFalse(rootNamespace("addr").contains("10.213."), "an address of the hosts in the machine's namespace");
        assertEquals(rootLinksBefore, rootNamespace("link"), "a link was added to the machine's namespace");
        assertEquals(List.of("ip", "netns", "exec", a.namespace().orElseThrow(), "true"), a.command(List.of("true")));
        assertEquals(List.of("true"), Host.local().command(List.of("true")));
    }

    @Test
    void aCutDropsTrafficBothWaysBetweenTwoHostsOnlyAndItsHealRestoresIt() {
        assertEquals(Reach.CONNECTED, b.probe(a.address(), port, ANSWER));
        // A port where nothing listens is refused at once while the path is up: the reset comes from the peer.
        assertEquals(Reach.REFUSED, a.probe(b.address(), port, ANSWER));
        net.cut(b, a);
        try {
            assertEquals(List.of("cut alpha|beta"), net.partitions());
            assertEquals(Reach.TIMED_OUT, b.probe(a.address(), port, SILENCE), "beta to alpha during the cut");
            assertEquals(Reach.TIMED_OUT, a.probe(b.address(), port, SILENCE), "alpha to beta: no reset comes back");
            assertEquals(Reach.CONNECTED, c.probe(a.address(), port, ANSWER), "gamma is not cut from alpha");
        } finally {
            net.heal(b, a);
        }
        assertEquals(List.of(), net.partitions());
        assertEquals(Reach.CONNECTED, b.probe(a.address(), port, ANSWER));
        assertEquals(Reach.REFUSED, a.probe(b.address(), port, ANSWER));
    }

    @Test
    void anEstablishedConnectionStallsDuringACutWithoutAnErrorAndCarriesOnAfterTheHeal() throws Exception {
        Path log = logs.resolve("ping.log");
        Process ping = ChildJvm.main(EchoMain.class).quickStart().on(c).args("ping", a.address(),
                Integer.toString(port)).start(log);
        try {
            Await.until("round trips from gamma to alpha", WAIT, () -> pings(log) >= 5);
            net.cut(c, a);
            long atCut = pings(log);
            // While a connect times out (1.5 s of the cut), at most the round trip in flight completed.
            assertEquals(Reach.TIMED_OUT, c.probe(a.address(), port, SILENCE));
            long stalled = pings(log);
            assertTrue(stalled <= atCut + 1, "round trips went on through the cut: " + atCut + " then " + stalled);
            assertTrue(ping.isAlive() && !read(log).contains("error"), "the connection failed instead of stalling: "
                    + read(log));
            net.heal(c, a);
            Await.until("round trips again on the same connection after the heal", WAIT,
                    () -> pings(log) >= stalled + 5);
            assertFalse(read(log).contains("error"), read(log));
        } finally {
            net.healAll();
            ping.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void anIsolatedHostReachesNobodyAndNobodyReachesItButItsOwnAddressesWork() {
        net.isolate(a);
        try {
            assertEquals(Reach.TIMED_OUT, b.probe(a.address(), port, SILENCE));
            assertEquals(Reach.TIMED_OUT, c.probe(a.address(), port, SILENCE));
            assertEquals(Reach.TIMED_OUT, a.probe(b.address(), port, SILENCE));
            assertEquals(Reach.TIMED_OUT, a.probe(c.address(), port, SILENCE));
            assertEquals(Reach.CONNECTED, a.probe(a.address(), port, ANSWER), "the isolated host's own address");
            assertEquals(Reach.REFUSED, b.probe(c.address(), port, ANSWER), "the others still reach each other");
        } finally {
            net.rejoin(a);
        }
        assertEquals(Reach.CONNECTED, b.probe(a.address(), port, ANSWER));
        assertEquals(Reach.REFUSED, a.probe(c.address(), port, ANSWER));
    }

    @Test
    void anAttachedNetworkSeesTheSameHostsAndLeavesThemInPlace() {
        HostNetwork attached = HostNetwork.attach(net.describe());
        assertEquals(net.hosts().stream().map(Host::toString).toList(),
                attached.hosts().stream().map(Host::toString).toList());
        attached.cut(attached.host("beta"), attached.host("alpha"));
        try {
            assertEquals(Reach.TIMED_OUT, b.probe(a.address(), port, SILENCE), "a cut made through the attached view");
        } finally {
            attached.healAll();
        }
        attached.close();
        assertEquals(4, net.ownNamespaces().size(), "closing an attached view deleted namespaces");
        assertEquals(Reach.CONNECTED, b.probe(a.address(), port, ANSWER));
        assertThrows(IllegalArgumentException.class, () -> net.host("delta"));
        assertThrows(IllegalArgumentException.class, () -> HostNetwork.create("Bad_Name"));
    }

    @Test
    void closeDeletesEverythingAndSweepDeletesOnlyTheLeftoversOfDeadRuns() throws Exception {
        HostNetwork other = HostNetwork.create("one", "two");
        List<String> made = other.ownNamespaces();
        assertEquals(3, made.size(), made.toString());
        Process forgotten = new ProcessBuilder(other.host("one").command(List.of("sleep", "300"))).start();
        other.close();
        assertTrue(forgotten.waitFor(30, TimeUnit.SECONDS), "a process left running on a deleted host");
        List<String> after = HostNetwork.namespaces();
        assertTrue(made.stream().noneMatch(after::contains), "left after close(): " + after);

        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(30, TimeUnit.SECONDS);
        String dead = HostNetwork.PREFIX + gone.pid() + "-1-x";
        String alive = HostNetwork.PREFIX + ProcessHandle.current().pid() + "-999999";
        for (String ns : List.of(dead, alive)) {
            assertEquals(0, HostNetwork.exec(List.of("ip", "netns", "add", ns), null, WAIT).exitCode(), ns);
        }
        try {
            List<String> swept = HostNetwork.sweep();
            assertTrue(swept.contains(dead), "a dead run's namespace was not swept: " + swept);
            assertFalse(swept.contains(alive), "a live run's namespace was swept");
            assertFalse(HostNetwork.namespaces().contains(dead));
            assertTrue(HostNetwork.namespaces().contains(alive));
        } finally {
            HostNetwork.exec(List.of("ip", "netns", "delete", alive), null, WAIT);
            HostNetwork.exec(List.of("ip", "netns", "delete", dead), null, WAIT);
        }
    }

    /** {@code ip -o -br OBJECT} in the machine's namespace, the first field (name) of each line. */
    private static String rootNamespace(String object) {
        HostNetwork.Result r = HostNetwork.exec(List.of("ip", "-o", "-br", object), null, WAIT);
        assertEquals(0, r.exitCode(), r.output());
        return r.output().lines().map(l -> "addr".equals(object) ? l : l.split("\\s+")[0]).sorted().toList()
                .toString();
    }

    private static long pings(Path log) {
        return read(log).lines().filter(l -> l.startsWith("ok ")).count();
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
