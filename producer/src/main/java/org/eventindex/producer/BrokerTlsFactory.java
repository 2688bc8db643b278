package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/** Builds the TLS socket factory for {@code stomp+ssl} brokers from {@link ProducerOptions.BrokerTls}. */
final class BrokerTlsFactory {
    private BrokerTlsFactory() {
    }

    /**
     * @return null when TLS is off; the JVM's default factory without a trust store
     * @throws ProducerException {@link ExitCode#CONFIGURATION} when the trust store cannot be read (the message names
     *                           the file and the reason, never the password)
     */
    static SSLSocketFactory of(ProducerOptions.BrokerTls tls) throws ProducerException {
        requireNonNull(tls, "tls is null");
        if (!tls.enabled()) {
            return null;
        }
        if (tls.trustStore() == null) {
            return (SSLSocketFactory) SSLSocketFactory.getDefault();
        }
        char[] password = tls.trustStorePassword() == null ? null : tls.trustStorePassword().toCharArray();
        try {
            KeyStore store = KeyStore.getInstance(tls.trustStore().toFile(), password);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new ProducerException(ExitCode.CONFIGURATION, "cannot use trust store " + tls.trustStore() + ": "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + " (check --trust-store and its password)", e);
        }
    }
}
