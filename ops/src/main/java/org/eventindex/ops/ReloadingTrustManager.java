package org.eventindex.ops;

import org.eventindex.config.TrustStore;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Objects;

/**
 * The HTTPS server's trust manager for client certificates ({@code *.http.truststore}), read again from its trust
 * store file when the file changes, like {@link ReloadingKeyManager}: a CA added for the clients' certificates (the
 * store moved over the file in one step, same password) is trusted from the next TLS handshake, without a restart. A
 * changed file that cannot be used keeps the CAs in use, logs one WARN and counts in
 * {@value CredentialFiles#RELOAD_FAILURES} ({@link WatchedFile}). One {@code stat} per handshake.
 */
final class ReloadingTrustManager extends X509ExtendedTrustManager {
    private final WatchedFile<X509ExtendedTrustManager> trust;

    /** Loads {@code store} now; {@code what} names it in the log and the metric (the configuration key). */
    ReloadingTrustManager(TrustStore store, String what) throws IOException, GeneralSecurityException {
        Objects.requireNonNull(store, "store is null");
        this.trust = new WatchedFile<>(store.file(), what, "trust store",
                "its CAs are trusted from the next connection", f -> load(store, what));
    }

    private static X509ExtendedTrustManager load(TrustStore store, String what) throws GeneralSecurityException {
        for (TrustManager t : store.trustManagers(what)) {
            if (t instanceof X509ExtendedTrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 trust manager for " + store.file());
    }

    /** The file's changes that could not be used. */
    WatchedFile<X509ExtendedTrustManager> file() {
        return trust;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        trust.get().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        trust.get().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        trust.get().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        trust.get().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        trust.get().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        trust.get().checkServerTrusted(chain, authType);
    }

    /** The CAs named in the server's certificate request: those of the file as it is now. */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return trust.get().getAcceptedIssuers();
    }
}
