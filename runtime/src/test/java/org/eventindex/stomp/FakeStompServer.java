package org.eventindex.stomp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * A scripted STOMP peer for failure tests: accepts one connection and answers each frame it reads (CONNECT included)
 * with what the script returns ({@code null}: no answer). It never sends heart-beats.
 */
final class FakeStompServer implements AutoCloseable {
    private final ServerSocket server;
    private volatile Socket client;

    FakeStompServer(Function<StompFrame, String> script) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(() -> serve(script), "fake-stomp-server");
        thread.setDaemon(true);
        thread.start();
    }

    /** Answers CONNECT with {@code connected} and nothing else. */
    static FakeStompServer silentAfter(String connected) throws IOException {
        return new FakeStompServer(f -> "CONNECT".equals(f.command()) ? connected : null);
    }

    StompEndpoint endpoint() {
        return new StompEndpoint("127.0.0.1", server.getLocalPort());
    }

    private void serve(Function<StompFrame, String> script) {
        try (Socket s = server.accept()) {
            client = s;
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                String reply = script.apply(StompFrameCodec.read(in));
                if (reply != null) {
                    out.write((reply + "\0").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        } catch (IOException e) {
            // the client or the test closed the connection
        }
    }

    @Override
    public void close() throws IOException {
        Socket s = client;
        if (s != null) {
            s.close();
        }
        server.close();
    }
}
