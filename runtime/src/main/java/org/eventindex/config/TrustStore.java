package org.eventindex.config;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * A PKCS12 or JKS file of trusted certificates for TLS to the broker ({@code stomp+ssl}) or to S3 over HTTPS, used
 * instead of the JVM's default trust store when a deployment runs its own certificate authority. Host names are
 * still checked by the clients. The password is never printed.
 *
 * @param file     the trust store
 * @param password its password, or null for none
 */
public record TrustStore(Path file, String password) {
    public TrustStore {
        Objects.requireNonNull(file, "file is null");
    }

    /**
     * @param what the configuration key naming the file, for error messages
     * @throws IllegalArgumentException naming the file and the reason (never the password)
     */
    public TrustManager[] trustManagers(String what) {
        // KeyStore's own error for a missing file is an IllegalArgumentException that reads like a bad password
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            in.read();
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": cannot read trust store " + file + ": "
                    + org.eventindex.io.FileReason.of(e), e);
        }
        KeyStore store;
        TrustManagerFactory tmf;
        try {
            store = KeyStore.getInstance(file.toFile(), password == null ? null : password.toCharArray());
            tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            if (store.size() > 0) {
                return tmf.getTrustManagers();
            }
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": cannot use trust store " + file + ": "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + " (check the file and its password)", e);
        }
        // else every handshake fails later with "the trustAnchors parameter must be non-empty"
        throw new IllegalArgumentException(what + ": trust store " + file + " holds no certificate"
                + (password == null ? " readable without a password (a PKCS12 store hides its certificates without"
                + " it): give the trust store's password" : ""));
    }

    /** A TLS context trusting only this store's certificates. */
    public SSLContext sslContext(String what) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagers(what), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(what + ": cannot set up TLS: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "TrustStore[" + file + (password == null ? "" : ", password=***") + "]";
    }
}
