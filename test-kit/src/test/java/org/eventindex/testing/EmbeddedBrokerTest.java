package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Smoke test of the fixture with hand-written STOMP frames (independent of the project's STOMP client). */
class EmbeddedBrokerTest {

    @TempDir
    Path dir;

    @Test
    void persistentMessageIsCountedAndSurvivesRestart() throws Exception {
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir)) {
            assertTrue(broker.stompPort() > 0 && broker.stompPort() < Ports.ephemeralLow(),
                    "a broker that restarts on its port takes it below the ephemeral range: " + broker.stompPort());
            assertEquals("127.0.0.1:" + broker.stompPort(), broker.stompEndpoints());
            assertEquals(0, broker.queueSize("/queue/smoke"));

            sendWithReceipt(broker.stompPort(), "/queue/smoke", "hello");
            assertEquals(1, broker.queueSize("/queue/smoke"));
            assertEquals(1, broker.queueSize("smoke"));

            int port = broker.stompPort();
            broker.restart();
            assertEquals(port, broker.stompPort());
            assertTrue(broker.isRunning());
            // The queue is recreated from the store on first access after a restart.
            sendWithReceipt(broker.stompPort(), "/queue/smoke", "again");
            assertEquals(2, broker.queueSize("/queue/smoke"));
        }
    }

    private static void sendWithReceipt(int port, String destination, String body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(("CONNECT\naccept-version:1.2\nhost:localhost\n\n\0").getBytes(StandardCharsets.UTF_8));
            assertTrue(readFrame(in).startsWith("CONNECTED"));
            out.write(("SEND\ndestination:" + destination + "\npersistent:true\nreceipt:r1\n\n" + body + "\0")
                    .getBytes(StandardCharsets.UTF_8));
            String receipt = readFrame(in);
            assertTrue(receipt.startsWith("RECEIPT") && receipt.contains("receipt-id:r1"), receipt);
            out.write("DISCONNECT\n\n\0".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String readFrame(InputStream in) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != 0) {
            if (b < 0) {
                throw new IOException("broker closed the connection");
            }
            if (frame.size() == 0 && (b == '\n' || b == '\r')) {
                continue;
            }
            frame.write(b);
        }
        return frame.toString(StandardCharsets.UTF_8);
    }
}
