package org.eventindex.stomp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens a {@link StompConnection}: broker choice and failover, CONNECT / CONNECTED and heart-beat negotiation. */
final class StompHandshake {
    private static final Logger LOG = LoggerFactory.getLogger(StompHandshake.class);

    private StompHandshake() {
    }

    /**
     * Connects to a broker of the endpoints (every address of every host name), starting at a random one and trying
     * the others in turn until one accepts.
     *
     * @throws StompException when no broker accepts; {@link StompException#isAuthentication()} when a broker
     *         refused the credentials (no further endpoint is tried then)
     */
    static StompConnection connect(StompSettings settings) throws IOException {
        BrokerSet set = settings.resolveBrokers();
        List<String> failures = new ArrayList<>();
        IOException last = null;
        set.failures().forEach((ep, why) -> failures.add(ep + ": " + why));
        if (!set.failures().isEmpty()) {
            last = new UnknownHostException(String.join("; ", failures));
        }
        int tlsFailures = 0;
        List<StompBroker> brokers = set.brokers();
        // spread the clients over the brokers of an alias: start at a random one, then the next on failure
        int start = brokers.isEmpty() ? 0 : ThreadLocalRandom.current().nextInt(brokers.size());
        for (int i = 0; i < brokers.size(); i++) {
            StompBroker broker = brokers.get((start + i) % brokers.size());
            StompEndpoint ep = broker.endpoint();
            InetAddress address = broker.address();
            try {
                return open(settings, ep, address);
            } catch (StompException e) {
                if (!e.retriable()) {
                    throw e;
                }
                failures.add(e.getMessage());
                last = e;
            } catch (SSLHandshakeException e) {
                failures.add(ep + " (" + address.getHostAddress() + "): TLS handshake failed: "
                        + StompConnection.describe(e));
                last = e;
                tlsFailures++;
            } catch (IOException e) {
                failures.add(ep + " (" + address.getHostAddress() + "): " + StompConnection.describe(e));
                last = e;
            }
        }
        // When every broker answered but none passed the TLS check, retrying cannot help: the trust store is wrong.
        boolean trust = tlsFailures > 0 && tlsFailures == failures.size();
        throw new StompException("no STOMP broker accepted a connection: " + String.join("; ", failures)
                + (trust ? " (check the trust store: no broker certificate was trusted)" : ""), trust, last);
    }

    private static StompConnection open(StompSettings settings, StompEndpoint ep, InetAddress address)
            throws IOException {
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, settings.connectTimeout().toMillis()));
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(new InetSocketAddress(address, ep.port()), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            if (settings.tls() != null) {
                socket = startTls(settings, ep, socket);
            }
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            long hb = settings.heartbeat().toMillis();
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("accept-version", "1.2");
            headers.put("host", ep.host());
            if (settings.login() != null) {
                headers.put("login", settings.login());
                headers.put("passcode", settings.passcode() == null ? "" : settings.passcode().value());
            }
            headers.put("heart-beat", hb + "," + hb);
            StompFrameCodec.write(StompFrame.of("CONNECT", headers), out);
            out.flush();
            StompFrame reply = StompFrameCodec.read(in, settings.frameLimits(), () -> { });
            if ("ERROR".equals(reply.command())) {
                throw new StompException("broker " + ep + " refused the connection: " + reply.errorText(),
                        isSecurityError(reply));
            }
            if (!"CONNECTED".equals(reply.command())) {
                throw new StompException("broker " + ep + " answered CONNECT with " + reply.command(), false);
            }
            if (!"1.2".equals(reply.header("version"))) {
                throw new StompException("broker " + ep + " does not speak STOMP 1.2 (version "
                        + reply.header("version") + ")", false);
            }
            long[] serverHb = parseHeartbeat(reply.header("heart-beat"));
            long send = hb == 0 || serverHb[1] == 0 ? 0 : Math.max(hb, serverHb[1]);
            long receive = hb == 0 || serverHb[0] == 0 ? 0 : Math.max(hb, serverHb[0]);
            StompConnection c = new StompConnection(settings, ep, socket, in, out, send, receive);
            c.start();
            LOG.debug("connected to STOMP broker {} ({}), heart-beat send {} ms, receive {} ms",
                    ep, address.getHostAddress(), send, receive);
            return c;
        } catch (IOException | RuntimeException e) {
            try {
                socket.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Layers TLS over a connected socket; the certificate must match the endpoint's host name (or IP). */
    private static Socket startTls(StompSettings settings, StompEndpoint ep, Socket plain) throws IOException {
        SSLSocket ssl = (SSLSocket) settings.tls().createSocket(plain, ep.host(), ep.port(), true);
        SSLParameters parameters = ssl.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(parameters);
        ssl.startHandshake();
        return ssl;
    }

    private static long[] parseHeartbeat(String value) {
        if (value == null) {
            return new long[] {0, 0};
        }
        String[] parts = value.split(",");
        try {
            return new long[] {Long.parseLong(parts[0].trim()), Long.parseLong(parts[1].trim())};
        } catch (RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /** ActiveMQ reports bad logins and refused destinations with a SecurityException text. */
    static boolean isSecurityError(StompFrame error) {
        String text = (error.headers().getOrDefault("message", "") + "\n"
                + new String(error.body(), StandardCharsets.UTF_8)).toLowerCase(Locale.ROOT);
        return text.contains("securityexception") || text.contains("password") || text.contains("authenticat")
                || text.contains("not authorized") || text.contains("unauthorized") || text.contains("credential");
    }

}
