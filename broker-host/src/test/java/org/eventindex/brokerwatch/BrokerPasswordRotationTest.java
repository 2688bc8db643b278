package org.eventindex.brokerwatch;

import org.eventindex.message.Queues;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.BrokerLoginFiles;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker password rotation on the shipped template's logins ({@code activemq/login.config} over its password files,
 * read again by ActiveMQ when they change), step by step as docs/security.md describes it: the new password in
 * {@code users-next.properties} (both accepted), then moved into {@code users.properties} with the next file emptied
 * (only the new one accepted). A connection logged in with the old password is not cut by any step.
 */
class BrokerPasswordRotationTest {
    private static final Path LOGIN_CONFIG = Path.of("activemq", "login.config");

    @TempDir
    Path dir;

    private static StompConnection login(EmbeddedBroker broker, String password) throws IOException {
        return StompConnection.connect(StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), "producer",
                password));
    }

    private static void send(StompConnection c, String body) throws IOException {
        c.send(Queues.SUPERVISOR, body.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    @Test
    void theBrokerAcceptsTheOldAndTheNewPasswordDuringTheSwitchThenOnlyTheNewOne() throws Exception {
        try (EmbeddedBroker broker = EmbeddedBroker.startWithLoginFiles(dir.resolve("data"),
                new EmbeddedBroker.Security(Map.of("producer", "old-password"),
                        Map.of("producer", Set.of(BrokerAccess.PRODUCERS))), LOGIN_CONFIG,
                dir.resolve("conf"), null);
             StompConnection established = login(broker, "old-password")) {
            Path conf = dir.resolve("conf");
            send(established, "1");

            BrokerLoginFiles.writeOwnerOnly(conf.resolve(BrokerLoginFiles.USERS_NEXT), "producer=new-password\n");
            try (StompConnection old = login(broker, "old-password");
                 StompConnection next = login(broker, "new-password")) {
                send(old, "2");
                send(next, "3");
            }

            BrokerLoginFiles.writeOwnerOnly(conf.resolve(BrokerLoginFiles.USERS), "producer=new-password\n");
            BrokerLoginFiles.writeOwnerOnly(conf.resolve(BrokerLoginFiles.USERS_NEXT), "");
            try (StompConnection next = login(broker, "new-password")) {
                send(next, "4");
            }
            StompException refused = assertThrows(StompException.class, () -> login(broker, "old-password"));
            assertTrue(refused.isAuthentication(), refused.getMessage());
            assertFalse(refused.getMessage().contains("old-password"), refused.getMessage());
            send(established, "5");
            assertEquals(5, broker.queueSize(Queues.SUPERVISOR), "every message sent during the rotation is kept");
        }
    }
}
