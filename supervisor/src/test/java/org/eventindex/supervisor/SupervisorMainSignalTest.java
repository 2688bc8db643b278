package org.eventindex.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.eventindex.testing.DaemonProcess;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.eventindex.testing.Ports;

/**
 * {@code eventindex supervisor run} as its own process, on a real broker, stopped by a real SIGTERM (systemd's stop)
 * or SIGINT (Ctrl-C): it stops cleanly and exits 0, as docs/supervisor.md says (the JVM alone exits 143 or 130).
 */
class SupervisorMainSignalTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private EmbeddedBroker broker;

    @AfterEach
    void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalStopsTheSupervisorCleanlyWithExitZero(String signal) throws Exception {
        broker = EmbeddedBroker.start(dir.resolve("broker"));
        int port = Ports.free();
        Path config = Files.writeString(dir.resolve("supervisor.properties"),
                SupervisorConfig.BROKERS + " = " + broker.stompEndpoints() + "\n"
                        + SupervisorConfig.JOURNAL_DIR + " = " + dir.resolve("journal") + "\n"
                        + SupervisorConfig.HTTP_PORT + " = " + port + "\n");
        try (DaemonProcess supervisor = DaemonProcess.start(SupervisorMain.class, dir.resolve("supervisor.log"), "run",
                "--config", config.toString())) {
            supervisor.awaitHttpOk(port, "/ready", TIMEOUT);
            supervisor.signal(signal);
            assertEquals(0, supervisor.awaitExit(TIMEOUT), supervisor.log());
            assertTrue(supervisor.log().contains("supervisor: SIG" + signal + " received, stopping"),
                    supervisor.log());
            assertFalse(supervisor.log().contains("ignored by this process"), supervisor.log());
        }
    }
}
