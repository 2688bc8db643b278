package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StompSenderTest {

    @TempDir
    Path dir;

    @Test
    void reconnectsAfterBrokerRestart() throws IOException {
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir);
             StompSender sender = new StompSender(
                     StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null))) {
            sender.send("/queue/test.sender", new byte[] {'1'}, Map.of());
            broker.restart();
            // The old connection is dead; the sender notices on the first send and retries on a fresh one.
            sender.send("/queue/test.sender", new byte[] {'2'}, Map.of());
            assertEquals(2, broker.queueSize("/queue/test.sender"));
            sender.close();
            assertThrows(IOException.class, () -> sender.send("/queue/test.sender", new byte[0], Map.of()));
        }
    }

    @Test
    void authenticationFailureIsNotRetriedAndSaysSo() {
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir, Map.of("ei", "right"));
             StompSender sender = new StompSender(
                     StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), "ei", "wrong"))) {
            StompException e = assertThrows(StompException.class,
                    () -> sender.send("/queue/test.sender", new byte[0], Map.of()));
            assertTrue(e.isAuthentication(), e.getMessage());
        }
    }
}
