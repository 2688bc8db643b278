package org.eventindex.brokerwatch;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompSettings;

/**
 * Asks the local broker for a sign of life: a STOMP CONNECT (with a login when one is given). A running master answers
 * within the timeout, with CONNECTED or an ERROR frame (a refused login); either proves that its transport and its
 * security plugin are working. A login keeps the broker's log free of a refused login per probe. A broker that is down
 * or still starting has no connector open, so the connection is refused. A stopped (SIGSTOP) or hung broker accepts
 * the TCP connection (the kernel does that for it) but never answers: that is {@link Outcome#SILENT}.
 *
 * <p>The TLS certificate is not checked: the probe connects only to a loopback address of its own node (checked by
 * {@link BrokerWatchdogMain}), and only needs the broker to take part in the handshake, which a stopped process cannot.
 */
final class BrokerProbe {
    /** What one probe found. */
    enum Outcome {
        /** the broker answered the CONNECT */
        ANSWERED,
        /** nothing listens: a broker that is down or still starting */
        NOT_LISTENING,
        /** the port accepted the connection but the broker did not answer in time: stopped or hung */
        SILENT
    }

    private final StompSettings settings;

    /** @param login null for an anonymous CONNECT (a refusal is an answer too) */
    BrokerProbe(StompEndpoint broker, boolean tls, String login, String password, Duration timeout) {
        requireNonNull(broker, "broker is null");
        requireNonNull(timeout, "timeout is null");
        this.settings = new StompSettings(List.of(broker), login, password, timeout, timeout, Duration.ZERO,
                tls ? anyCertificate() : null);
    }

    Outcome probe() {
        try (StompConnection c = StompConnection.connect(settings)) {
            return Outcome.ANSWERED;
        } catch (StompException e) {
            if (!e.retriable()) {
                return Outcome.ANSWERED; // a refused login is an answer
            }
            return classify(e);
        } catch (IOException e) {
            return classify(e);
        }
    }

    private static Outcome classify(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return Outcome.SILENT;
            }
            if (t instanceof ConnectException) {
                return Outcome.NOT_LISTENING;
            }
        }
        // It took the connection and then closed it or sent something unexpected (too many connections, a broker
        // stopping): alive, or on its way down, which its service manager sees.
        return Outcome.ANSWERED;
    }

    @Override
    public String toString() {
        return "BrokerProbe[" + settings.endpoints() + ", tls=" + (settings.tls() != null) + ", timeout="
                + settings.connectTimeout() + "]";
    }

    private static SSLSocketFactory anyCertificate() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AnyCertificate()}, null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM offers no TLS context for the broker probe", e);
        }
    }

    /** Accepts every certificate and host name: the probe sends no secret and reads nothing but the first frame. */
    private static final class AnyCertificate extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
