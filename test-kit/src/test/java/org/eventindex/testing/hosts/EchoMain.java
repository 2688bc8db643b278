package org.eventindex.testing.hosts;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The two ends of a connection for {@link HostNetworkTest}, each run on a host: {@code serve ADDRESS PORT} echoes
 * every byte back to each client; {@code ping ADDRESS PORT} holds one connection and sends a byte, waits for its echo
 * (without a read timeout, so a partition stalls it) and prints {@code ok N}, again and again; the first error is
 * printed as {@code error ...} and ends it with status 1.
 */
public final class EchoMain {
    private EchoMain() {
    }

    public static void main(String[] args) throws IOException {
        InetAddress address = InetAddress.getByName(args[1]);
        int port = Integer.parseInt(args[2]);
        if ("serve".equals(args[0])) {
            serve(new InetSocketAddress(address, port));
        } else {
            ping(new InetSocketAddress(address, port), System.out);
        }
    }

    private static void serve(InetSocketAddress bind) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.bind(bind);
            System.out.println("listening on " + bind);
            while (true) {
                Socket s = server.accept();
                Thread t = new Thread(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        int b;
                        while ((b = in.read()) >= 0) {
                            out.write(b);
                            out.flush();
                        }
                    } catch (IOException gone) {
                        // the client went away
                    }
                });
                t.setDaemon(true);
                t.start();
            }
        }
    }

    private static void ping(InetSocketAddress peer, PrintStream out) {
        try (Socket s = new Socket()) {
            s.connect(peer, 5000);
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream o = s.getOutputStream();
            for (long n = 1; ; n++) {
                o.write(1);
                o.flush();
                if (in.read() < 0) {
                    throw new IOException("end of stream");
                }
                out.println("ok " + n);
                out.flush();
                Thread.sleep(20);
            }
        } catch (IOException | InterruptedException e) {
            out.println("error " + e);
            out.flush();
            System.exit(1);
        }
    }
}
