package org.eventindex.config;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import org.eventindex.stomp.StompSettings;

/**
 * TLS of a daemon's two clients: STOMP over TLS to the brokers ({@code stomp+ssl}) and HTTPS to S3 (chosen by the
 * {@code https://} S3 endpoint). Each may name its own trust store; without one the JVM's default trust store is
 * used. The same five keys exist under every daemon's prefix ({@link #keys(String)}).
 *
 * @param prefix     the daemon's key prefix, for error messages
 * @param stompTls   connect to the brokers over TLS
 * @param stompTrust trust store for the brokers' certificates, or null for the JVM's
 * @param s3Trust    trust store for the S3 endpoint's certificate (with an https endpoint), or null for the JVM's
 */
public record TlsSettings(String prefix, boolean stompTls, TrustStore stompTrust, TrustStore s3Trust) {
    public static final String ENV_STOMP_TRUSTSTORE_PASSWORD = "EI_STOMP_TRUSTSTORE_PASSWORD";
    public static final String ENV_S3_TRUSTSTORE_PASSWORD = "EI_S3_TRUSTSTORE_PASSWORD";

    public TlsSettings {
        if (stompTrust != null && !stompTls) {
            throw new IllegalArgumentException(prefix + "stomp.truststore is set but " + prefix
                    + "stomp.tls is false: the trust store is only used over TLS");
        }
    }

    /** The documented keys under {@code prefix} (e.g. {@code "consumer."}). */
    public static List<ConfigKey> keys(String prefix) {
        return List.of(
                new ConfigKey(prefix + "stomp.tls", "false", null,
                        "Connect to the brokers with STOMP over TLS (ActiveMQ stomp+ssl, TLSv1.3/1.2); the broker's"
                                + " certificate must match the host name of each endpoint."),
                new ConfigKey(prefix + "stomp.truststore", "", null,
                        "PKCS12 or JKS trust store for the brokers' certificates; empty: the JVM's default.")
                        .secretPath(),
                new ConfigKey(prefix + "stomp.truststore.password.file", "", ENV_STOMP_TRUSTSTORE_PASSWORD,
                        "File (mode 0600) holding that trust store's password; if unset, the environment variable;"
                                + " if neither, none.").secretPath(),
                new ConfigKey(prefix + "s3.truststore", "", null,
                        "PKCS12 or JKS trust store for the S3 endpoint's certificate when it is https://; empty:"
                                + " the JVM's default.").secretPath(),
                new ConfigKey(prefix + "s3.truststore.password.file", "", ENV_S3_TRUSTSTORE_PASSWORD,
                        "File (mode 0600) holding that trust store's password; if unset, the environment variable;"
                                + " if neither, none.").secretPath());
    }

    /** Reads the keys of {@link #keys(String)}. */
    public static TlsSettings read(ConfigReader r, String prefix) throws IOException {
        String tls = r.text(prefix + "stomp.tls");
        if (!tls.equals("true") && !tls.equals("false")) {
            throw new IllegalArgumentException(prefix + "stomp.tls '" + tls + "' must be true or false");
        }
        return new TlsSettings(prefix, Boolean.parseBoolean(tls),
                store(r, prefix + "stomp.truststore"), store(r, prefix + "s3.truststore"));
    }

    private static TrustStore store(ConfigReader r, String key) throws IOException {
        String file = r.text(key);
        return file.isEmpty() ? null : new TrustStore(Path.of(file), r.secret(key + ".password.file"));
    }

    /** {@code settings} over TLS when {@link #stompTls()}, else unchanged. */
    public StompSettings applyTo(StompSettings settings) {
        if (!stompTls) {
            return settings;
        }
        SSLSocketFactory factory = stompTrust == null ? (SSLSocketFactory) SSLSocketFactory.getDefault()
                : stompTrust.sslContext(prefix + "stomp.truststore").getSocketFactory();
        return settings.withTls(factory);
    }

    /** Trust managers for HTTPS to S3, or null for the JVM's defaults. */
    public TrustManager[] s3TrustManagers() {
        return s3Trust == null ? null : s3Trust.trustManagers(prefix + "s3.truststore");
    }
}
