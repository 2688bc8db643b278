package org.eventindex.brokerwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog's probe against a real secured broker (plain and TLS), a port nobody listens on, and a socket that
 * takes connections and never answers, which is what a stopped (SIGSTOP) broker looks like from outside.
 */
class BrokerProbeIT {
    private static final Duration TIMEOUT = Duration.ofMillis(1500);

    @TempDir
    Path dir;

    @Test
    void aSecuredBrokerAnswersTheLoginAndTheAnonymousConnectWithARefusal() {
        try (EmbeddedBroker broker = EmbeddedBroker.startSecured(dir.resolve("plain"),
                EmbeddedBroker.Security.onePerGroup(Map.of(BrokerAccess.OPERATORS, "secret")))) {
            StompEndpoint ep = endpoint(broker.stompPort());
            assertEquals(BrokerProbe.Outcome.ANSWERED, new BrokerProbe(ep, false, BrokerAccess.OPERATORS, "secret",
                    TIMEOUT).probe());
            assertEquals(BrokerProbe.Outcome.ANSWERED, new BrokerProbe(ep, false, null, null, TIMEOUT).probe());
        }
    }

    @Test
    void aTlsBrokerAnswersWhateverItsCertificate() throws Exception {
        TestCertificates certificates = TestCertificates.create(dir.resolve("tls-certs"));
        try (EmbeddedBroker broker = EmbeddedBroker.startTls(dir.resolve("tls"), certificates)) {
            assertEquals(BrokerProbe.Outcome.ANSWERED, new BrokerProbe(endpoint(broker.stompPort()), true, null, null,
                    TIMEOUT)
                    .probe());
        }
    }

    @Test
    void aClosedPortIsNotListeningAndASocketThatNeverAnswersIsSilent() throws Exception {
        int closed = Ports.free();
        assertEquals(BrokerProbe.Outcome.NOT_LISTENING, new BrokerProbe(endpoint(closed), false, null, null, TIMEOUT)
                .probe());
        // The kernel completes the handshake into the backlog; nobody reads: a stopped broker.
        try (ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            StompEndpoint ep = endpoint(mute.getLocalPort());
            assertEquals(BrokerProbe.Outcome.SILENT, new BrokerProbe(ep, false, null, null, TIMEOUT).probe());
            assertEquals(BrokerProbe.Outcome.SILENT, new BrokerProbe(ep, true, null, null, TIMEOUT).probe());
        }
    }

    private static StompEndpoint endpoint(int port) {
        return new StompEndpoint("127.0.0.1", port);
    }
}
