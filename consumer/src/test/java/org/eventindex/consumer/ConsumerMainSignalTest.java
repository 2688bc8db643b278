package org.eventindex.consumer;

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
 * {@code eventindex consumer run} as its own process, subscribed to a real broker, stopped by a real SIGTERM
 * (systemd's stop) or SIGINT (Ctrl-C): it stops cleanly and exits 0, as docs/consumer.md says (the JVM alone exits
 * 143 or 130). No signal arrives, so S3, HDFS and Kudu are never contacted: their addresses are closed local ports.
 */
class ConsumerMainSignalTest {
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
    void aSignalStopsTheConsumerCleanlyWithExitZero(String signal) throws Exception {
        broker = EmbeddedBroker.start(dir.resolve("broker"));
        int port = Ports.free();
        int closed = Ports.free();
        Path config = Files.writeString(dir.resolve("consumer.properties"), String.join("\n",
                ConsumerConfig.ID + " = signal-test",
                ConsumerConfig.BROKERS + " = " + broker.stompEndpoints(),
                ConsumerConfig.S3_ENDPOINT + " = http://127.0.0.1:" + closed,
                ConsumerConfig.HDFS_URI + " = hdfs://127.0.0.1:" + closed,
                ConsumerConfig.KUDU_MASTERS + " = 127.0.0.1:" + closed,
                ConsumerConfig.SPOOL_DIR + " = " + dir.resolve("spool"),
                ConsumerConfig.HTTP_PORT + " = " + port, ""));
        try (DaemonProcess consumer = DaemonProcess.start(ConsumerMain.class, dir.resolve("consumer.log"), "run",
                "--config", config.toString())) {
            consumer.awaitHttpOk(port, "/health", TIMEOUT);
            consumer.awaitLog("consumer signal-test started", TIMEOUT);
            consumer.signal(signal);
            assertEquals(0, consumer.awaitExit(TIMEOUT), consumer.log());
            assertTrue(consumer.log().contains("consumer: SIG" + signal + " received, stopping"), consumer.log());
            assertFalse(consumer.log().contains("ignored by this process"), consumer.log());
        }
    }
}
