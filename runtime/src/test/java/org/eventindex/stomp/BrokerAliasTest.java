package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DNS name of three addresses is three brokers, through the JVM's own resolver: a child JVM whose resolver reads a
 * hosts file ({@code -Djdk.net.hosts.file}) giving {@code mq.alias.test} the addresses 127.0.0.2, 127.0.0.3 and
 * 127.0.0.4, where three independent brokers listen on one port. Nothing of the machine's resolver is touched.
 */
class BrokerAliasTest {
    private static final String ALIAS = "mq.alias.test";
    private static final List<String> ADDRESSES = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

    @TempDir
    Path dir;
    private final List<EmbeddedBroker> brokers = new ArrayList<>();

    @AfterEach
    void stopBrokers() {
        brokers.forEach(EmbeddedBroker::close);
    }

    @Test
    void aNameOfThreeAddressesIsSubscribedOnThreeBrokers() throws Exception {
        int port = Ports.free();
        StringBuilder hosts = new StringBuilder();
        for (String a : ADDRESSES) {
            brokers.add(EmbeddedBroker.startOn(dir.resolve(a), a, port));
            hosts.append(a).append(' ').append(ALIAS).append('\n');
        }
        Path hostsFile = Files.writeString(dir.resolve("hosts"), hosts.toString());
        Path log = dir.resolve("child.log");
        Process child = ChildJvm.main(AliasFanInMain.class).quickStart().heap("128m")
                .options("-Djdk.net.hosts.file=" + hostsFile)
                .args(ALIAS + ":" + port, Integer.toString(ADDRESSES.size())).start(log);
        try {
            Await.until("the child subscribed on the alias's brokers", Duration.ofSeconds(60),
                    () -> read(log).contains("SUBSCRIBED") || !child.isAlive());
            String subscribed = read(log).lines().filter(l -> l.startsWith("SUBSCRIBED")).findFirst()
                    .orElseThrow(() -> new AssertionError("the child ended unsubscribed: " + read(log)));
            assertEquals("SUBSCRIBED [" + ALIAS + ":" + port + "/127.0.0.2, " + ALIAS + ":" + port + "/127.0.0.3, "
                    + ALIAS + ":" + port + "/127.0.0.4]", subscribed);
            for (String a : ADDRESSES) {
                StompSettings one = StompSettings.of(StompEndpoint.parseList(a + ":" + port), null, null);
                try (StompSender sender = new StompSender(one)) {
                    sender.send("/queue/test.alias", ("sent to " + a).getBytes(StandardCharsets.UTF_8), Map.of());
                }
            }
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not end: " + read(log));
            assertEquals(0, child.exitValue(), read(log));
            for (String a : ADDRESSES) {
                assertTrue(read(log).contains("RECEIVED sent to " + a + " VIA " + ALIAS + ":" + port + "/" + a),
                        read(log));
            }
        } finally {
            child.destroyForcibly();
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
