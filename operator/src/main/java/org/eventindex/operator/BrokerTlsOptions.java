package org.eventindex.operator;

import org.eventindex.config.SecretFile;
import org.eventindex.config.TrustStore;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompSettings;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocketFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The TLS options of every operator command, named as the producer's ({@code --trust-store},
 * {@code --trust-store-password-file}, {@code stomp+ssl://} entries in {@code --brokers}) plus {@code --tls} for a
 * list written without schemes, so that an operator reaches the production brokers (STOMP over TLS only, port
 * 61614). The broker's certificate is always checked against the entry's host name or IP, as the daemons do: there is
 * no option to turn that off. Decision 0027.
 */
final class BrokerTlsOptions {
    /** The trust store password when no {@code --trust-store-password-file} is given (the producer's variable). */
    static final String ENV_TRUST_STORE_PASSWORD = "EI_TRUST_STORE_PASSWORD";
    static final String TLS_SCHEME = "stomp+ssl://";
    static final String PLAIN_SCHEME = "stomp://";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;
    @Option(names = "--tls", description = "connect with STOMP over TLS (the production brokers' stomp+ssl port,"
            + " 61614); the same as writing each --brokers entry as " + TLS_SCHEME + "H:P. The broker's certificate"
            + " must match the entry's host name or IP.")
    private boolean tls;
    @Option(names = "--trust-store", paramLabel = "FILE",
            description = "PKCS12 or JKS trust store for the brokers' certificates (default: the JVM's); TLS only")
    private Path trustStore;
    @Option(names = "--trust-store-password-file", paramLabel = "FILE",
            description = "file (mode 0600) holding the trust store's password (or env " + ENV_TRUST_STORE_PASSWORD
                    + "; neither: none)")
    private Path trustStorePasswordFile;

    /** The brokers of {@code --brokers}, without their schemes. */
    List<StompEndpoint> endpoints(String brokers) {
        List<String> bare = new ArrayList<>();
        int secure = 0;
        for (String entry : brokers.split(",", -1)) {
            String e = entry.strip();
            if (e.startsWith(TLS_SCHEME)) {
                secure++;
                bare.add(e.substring(TLS_SCHEME.length()));
            } else if (e.startsWith(PLAIN_SCHEME)) {
                if (tls) {
                    throw usage("--brokers entry '" + e + "' is plain STOMP but --tls is given: use one kind");
                }
                bare.add(e.substring(PLAIN_SCHEME.length()));
            } else {
                bare.add(e);
            }
        }
        if (secure > 0 && secure < bare.size()) {
            throw usage("--brokers mixes " + TLS_SCHEME + " and plain entries: use one kind (or --tls for all)");
        }
        try {
            return StompEndpoint.parseList(String.join(",", bare));
        } catch (IllegalArgumentException e) {
            throw usage("--brokers: " + e.getMessage());
        }
    }

    /** True when the connections are TLS: {@code --tls} or {@code stomp+ssl://} entries. */
    boolean enabled(String brokers) {
        return tls || brokers.strip().startsWith(TLS_SCHEME);
    }

    /**
     * {@code settings} over TLS when {@link #enabled}.
     *
     * @throws ParameterException (exit 2) for a trust store without TLS
     * @throws IOException naming the option and the file when the password file cannot be read
     * @throws IllegalArgumentException naming the option and the file when the trust store cannot be used
     */
    StompSettings applyTo(StompSettings settings, String brokers, Map<String, String> env) throws IOException {
        if (!enabled(brokers)) {
            if (trustStore != null || trustStorePasswordFile != null) {
                throw usage((trustStore != null ? "--trust-store" : "--trust-store-password-file")
                        + " is only used over TLS: give --tls or write the brokers as " + TLS_SCHEME + "H:P");
            }
            return settings;
        }
        if (trustStore == null) {
            if (trustStorePasswordFile != null) {
                throw usage("--trust-store-password-file is given without --trust-store");
            }
            return settings.withTls((SSLSocketFactory) SSLSocketFactory.getDefault());
        }
        String password = trustStorePasswordFile != null
                ? SecretFile.read(trustStorePasswordFile, "--trust-store-password-file")
                : env.get(ENV_TRUST_STORE_PASSWORD);
        return settings.withTls(new TrustStore(trustStore, password).sslContext("--trust-store")
                .getSocketFactory());
    }

    /**
     * {@code e} with what the operator may have missed when no broker took the connection: over TLS, the trust the
     * certificates were checked against (the handshake's own message names neither the option nor the file); in
     * plain TCP, that a TLS-only broker needs {@code --tls} (it just closes a plain connection).
     */
    IOException explained(IOException e, boolean overTls) {
        if (!(e instanceof StompException s) || s.isAuthentication() && !overTls) {
            return e;
        }
        if (overTls && s.getCause() instanceof SSLHandshakeException) {
            String trust = trustStore != null ? "--trust-store " + trustStore
                    : "the JVM's default trust store (no --trust-store given)";
            return new StompException(e.getMessage() + "; the certificates were checked against " + trust,
                    s.isAuthentication(), e);
        }
        // StompConnection.connect's message when every endpoint failed
        if (!overTls && e.getMessage() != null && e.getMessage().startsWith("no STOMP broker accepted")) {
            return new StompException(e.getMessage() + "; a broker that takes STOMP over TLS only (the production"
                    + " pair's port 61614) closes plain connections: give --tls", false, e);
        }
        return e;
    }

    private ParameterException usage(String message) {
        return new ParameterException(command.commandLine(), message);
    }
}
