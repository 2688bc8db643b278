package org.eventindex.ops;

import org.eventindex.config.ConfigFile;
import org.eventindex.config.ConfigKey;
import org.eventindex.config.ConfigReader;
import org.eventindex.config.TrustStore;
import org.eventindex.io.FileReason;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.security.auth.x500.X500Principal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Who may use a daemon's HTTP server and how it is reached: TLS with the site's key store, client authentication by
 * X.509 certificate (the subject DN is the user, optionally limited to listed subjects or issuers) and by Kerberos
 * through SPNEGO ({@code WWW-Authenticate: Negotiate}, the client principal is the user), and an optional second,
 * plain and unauthenticated bind that serves only {@code /health}, {@code /ready} and {@code /metrics} for Prometheus.
 * The same keys exist under every daemon's prefix ({@link #keys(String)}); {@link #open()} is the default: plain HTTP
 * without authentication.
 *
 * @param prefix         the keys' prefix, e.g. {@code supervisor.http.}, for error messages
 * @param keyStore       the server's certificate and key (PKCS12), or empty for plain HTTP
 * @param keyStorePassword the key store's password (also the key's), from its file; null without TLS
 * @param clientTrust    the CAs of client certificates, or null for the JVM's default trust store
 * @param mechanisms     the accepted authentications; empty: none required
 * @param allowedSubjects with certificates: the only subjects accepted (with {@code allowedIssuers}: either list)
 * @param allowedIssuers with certificates: the only issuers accepted
 * @param kerberosPrincipal with Kerberos: the server's principal ({@code HTTP/host@REALM}, or {@code *} for any of
 *                       the keytab)
 * @param kerberosKeytab with Kerberos: the keytab holding that principal's keys
 * @param allowedPrincipals with Kerberos: the only client principals accepted ({@code user@REALM}, or {@code @REALM}
 *                       for every principal of a realm); empty: any the KDC vouches for
 * @param metricsHost    the unauthenticated bind's address, empty: the main bind's
 * @param metricsPort    the unauthenticated bind's port, empty: no such bind (0: a free port)
 */
public record HttpAccess(String prefix, Optional<Path> keyStore, String keyStorePassword, TrustStore clientTrust,
                         Set<Mechanism> mechanisms, List<X500Principal> allowedSubjects,
                         List<X500Principal> allowedIssuers, String kerberosPrincipal, Path kerberosKeytab,
                         List<String> allowedPrincipals, String metricsHost, Optional<Integer> metricsPort) {

    /** A way a client proves who it is. */
    public enum Mechanism {
        /** SPNEGO with a Kerberos ticket ({@code Authorization: Negotiate}). */
        KERBEROS,
        /** A TLS client certificate signed by a trusted CA. */
        CERTIFICATE;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public HttpAccess {
        Objects.requireNonNull(prefix, "prefix is null");
        Objects.requireNonNull(keyStore, "keyStore is null");
        mechanisms = mechanisms.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(mechanisms));
        allowedSubjects = List.copyOf(allowedSubjects);
        allowedIssuers = List.copyOf(allowedIssuers);
        allowedPrincipals = List.copyOf(allowedPrincipals);
        metricsHost = metricsHost == null ? "" : metricsHost.trim();
        Objects.requireNonNull(metricsPort, "metricsPort is null");
        if (keyStore.isPresent() && keyStorePassword == null) {
            throw new IllegalArgumentException(prefix + "keystore.password.file must name the file holding the"
                    + " password of " + keyStore.get());
        }
        if (mechanisms.contains(Mechanism.CERTIFICATE) && keyStore.isEmpty()) {
            throw new IllegalArgumentException(prefix + "auth includes certificate, which needs TLS: set "
                    + prefix + "keystore (and " + prefix + "tls=true)");
        }
        if (!mechanisms.contains(Mechanism.CERTIFICATE) && (clientTrust != null || !allowedSubjects.isEmpty()
                || !allowedIssuers.isEmpty())) {
            throw new IllegalArgumentException(prefix + "truststore and " + prefix + "allowed.* apply to client"
                    + " certificates: add certificate to " + prefix + "auth or remove them");
        }
        if (mechanisms.contains(Mechanism.KERBEROS)) {
            if (kerberosPrincipal == null || kerberosPrincipal.isBlank() || kerberosKeytab == null) {
                throw new IllegalArgumentException(prefix + "auth includes kerberos: set " + prefix
                        + "kerberos.principal (HTTP/<host name>@<REALM>) and " + prefix + "kerberos.keytab");
            }
        } else if (kerberosPrincipal != null && !kerberosPrincipal.isBlank() || kerberosKeytab != null
                || !allowedPrincipals.isEmpty()) {
            throw new IllegalArgumentException(prefix + "kerberos.* or " + prefix + "allowed.principals is set but "
                    + prefix + "auth does not include kerberos");
        }
        metricsPort.ifPresent(p -> {
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException(prefix + "metrics.port must be within 0..65535, got " + p);
            }
        });
    }

    /** Plain HTTP, no authentication, no separate metrics bind: what a daemon has without the keys. */
    public static HttpAccess open() {
        return new HttpAccess("", Optional.empty(), null, null, Set.of(), List.of(), List.of(), null, null, List.of(),
                "", Optional.empty());
    }

    public boolean tls() {
        return keyStore.isPresent();
    }

    /** Whether every request of the main bind must be authenticated. */
    public boolean authenticated() {
        return !mechanisms.isEmpty();
    }

    /** {@code https} or {@code http}, for the daemons' "listening on" lines. */
    public String scheme() {
        return tls() ? "https" : "http";
    }

    /** This access with the unauthenticated metrics bind on {@code host:port} (e.g. for a test: port 0). */
    public HttpAccess withMetricsBind(String host, int port) {
        return new HttpAccess(prefix, keyStore, keyStorePassword, clientTrust, mechanisms, allowedSubjects,
                allowedIssuers, kerberosPrincipal, kerberosKeytab, allowedPrincipals, host, Optional.of(port));
    }

    /** The documented keys under {@code prefix} (e.g. {@code "supervisor.http."}). */
    public static List<ConfigKey> keys(String prefix) {
        return List.of(
                new ConfigKey(prefix + "tls", "false", null, "Serve HTTPS (TLSv1.3/1.2) with " + prefix
                        + "keystore; plain HTTP on this port is then refused."),
                new ConfigKey(prefix + "keystore", "", null, "PKCS12 key store holding the server's certificate"
                        + " (for the host name the clients use) and its key; needed with " + prefix + "tls=true.")
                        .secretPath(),
                new ConfigKey(prefix + "keystore.password.file", "", null, "File (mode 0600) holding the key"
                        + " store's password, which is also the key's.").secretPath(),
                new ConfigKey(prefix + "auth", "none", null, "Authentication every request needs: none, or"
                        + " kerberos (SPNEGO, WWW-Authenticate: Negotiate; the client principal is the user),"
                        + " certificate (a TLS client certificate; the subject DN is the user), or both"
                        + " (kerberos,certificate: a certificate is asked for but not required, a request without one"
                        + " must bring a Kerberos ticket). With certificate alone a client without a certificate"
                        + " fails the TLS handshake."),
                new ConfigKey(prefix + "truststore", "", null, "PKCS12 or JKS trust store of the CAs whose client"
                        + " certificates are accepted (e.g. the grid's IGTF CAs); empty: the JVM's default. Read again when the"
                        + " file changes (a CA added without a restart; same password).")
                        .secretPath(),
                new ConfigKey(prefix + "truststore.password.file", "", null, "File (mode 0600) holding that trust"
                        + " store's password; empty: none.").secretPath(),
                new ConfigKey(prefix + "allowed.subjects", "", null, "Client certificate subjects accepted,"
                        + " DNs separated by ';' (e.g. CN=alice,OU=Users,O=Example); empty, with "
                        + prefix + "allowed.issuers empty too: any certificate the trust store verifies. A"
                        + " certificate is accepted when its subject or its issuer is listed."),
                new ConfigKey(prefix + "allowed.issuers", "", null, "Client certificate issuers (CA subjects)"
                        + " accepted, DNs separated by ';'."),
                new ConfigKey(prefix + "kerberos.principal", "", null, "The server's Kerberos principal for SPNEGO,"
                        + " HTTP/<the host name clients use>@<REALM>; * accepts any principal of the keytab (a"
                        + " service behind a DNS alias)."),
                new ConfigKey(prefix + "kerberos.keytab", "", null, "Keytab (mode 0600) holding that principal's"
                        + " keys; read again at each request's check, so a new key version takes effect without a"
                        + " restart.").secretPath(),
                new ConfigKey(prefix + "allowed.principals", "", null, "Kerberos client principals accepted,"
                        + " separated by ',' (alice@EXAMPLE.ORG), an entry @EXAMPLE.ORG accepting every principal of"
                        + " that realm; empty: every principal the KDC vouches for. Another gets 403."),
                new ConfigKey(prefix + "metrics.host", "", null, "Address of the separate bind serving only"
                        + " /health, /ready and /metrics, plain HTTP without authentication (for Prometheus and load"
                        + " balancers); empty: the main bind's address."),
                new ConfigKey(prefix + "metrics.port", "", null, "Port of that bind; empty: no separate bind (those"
                        + " three paths are served on the main bind, under its TLS and authentication)."));
    }

    /** Reads the keys of {@link #keys(String)}. */
    public static HttpAccess read(ConfigReader r, String prefix) throws IOException {
        String tls = r.text(prefix + "tls");
        if (!tls.equals("true") && !tls.equals("false")) {
            throw new IllegalArgumentException(prefix + "tls '" + tls + "' must be true or false");
        }
        String keyStore = r.text(prefix + "keystore");
        if (tls.equals("true") && keyStore.isEmpty()) {
            throw new IllegalArgumentException(prefix + "tls=true needs " + prefix + "keystore (the server's"
                    + " certificate and key, PKCS12)");
        }
        if (tls.equals("false") && !keyStore.isEmpty()) {
            throw new IllegalArgumentException(prefix + "keystore is set but " + prefix + "tls is false");
        }
        String trust = r.text(prefix + "truststore");
        String keytab = r.text(prefix + "kerberos.keytab");
        String metricsPort = r.text(prefix + "metrics.port");
        Optional<Integer> port = Optional.empty();
        if (!metricsPort.isEmpty()) {
            port = Optional.of(r.integer(prefix + "metrics.port"));
        }
        return new HttpAccess(prefix, keyStore.isEmpty() ? Optional.empty() : Optional.of(Path.of(keyStore)),
                keyStore.isEmpty() ? null : r.secret(prefix + "keystore.password.file"),
                trust.isEmpty() ? null : new TrustStore(Path.of(trust), r.secret(prefix + "truststore.password.file")),
                mechanisms(prefix + "auth", r.text(prefix + "auth")),
                principals(prefix + "allowed.subjects", r.text(prefix + "allowed.subjects")),
                principals(prefix + "allowed.issuers", r.text(prefix + "allowed.issuers")),
                r.text(prefix + "kerberos.principal"), keytab.isEmpty() ? null : Path.of(keytab),
                kerberosPrincipals(prefix + "allowed.principals", r.text(prefix + "allowed.principals")),
                r.text(prefix + "metrics.host"), port);
    }

    /**
     * Reads a file holding only the keys of {@link #keys(String)} under {@code daemon + "http."} (e.g. the file of
     * {@code lookup serve --http-config}, keys {@code lookup.http.*}).
     *
     * @param daemon the daemon's prefix, e.g. {@code "lookup."}
     * @throws IllegalArgumentException naming the file (and line) and the key
     * @throws IOException              when the file or a password file cannot be read
     */
    public static HttpAccess load(Path file, String daemon) throws IOException {
        ConfigFile props = ConfigReader.load(file, "the " + daemon.substring(0, daemon.length() - 1)
                + " HTTP access");
        try {
            return read(new ConfigReader(daemon, keys(daemon + "http."), props, System.getenv()), daemon + "http.");
        } catch (IllegalArgumentException e) {
            throw ConfigReader.inFile(file, e);
        }
    }

    static Set<Mechanism> mechanisms(String key, String value) {
        Set<Mechanism> m = EnumSet.noneOf(Mechanism.class);
        if (value.equals("none")) {
            return m;
        }
        for (String s : value.split(",")) {
            String name = s.strip();
            m.add(switch (name) {
                case "kerberos" -> Mechanism.KERBEROS;
                case "certificate" -> Mechanism.CERTIFICATE;
                default -> throw new IllegalArgumentException(key + " '" + value + "': '" + name + "' is not"
                        + " kerberos or certificate (or the whole value none)");
            });
        }
        return m;
    }

    static List<String> kerberosPrincipals(String key, String value) {
        List<String> list = new ArrayList<>();
        for (String p : value.split(",")) {
            String name = p.strip();
            if (name.isEmpty()) {
                continue;
            }
            if (!name.matches("[^@\\s]*@[^@\\s]+")) {
                throw new IllegalArgumentException(key + ": '" + name + "' is not user@REALM or @REALM");
            }
            list.add(name);
        }
        return list;
    }

    /** Whether the Kerberos client {@code principal} may use the server. */
    boolean allows(String principal) {
        if (allowedPrincipals.isEmpty()) {
            return true;
        }
        String realm = principal.substring(principal.lastIndexOf('@') + 1);
        return allowedPrincipals.stream().anyMatch(a -> a.equals(principal) || a.equals("@" + realm));
    }

    static List<X500Principal> principals(String key, String value) {
        List<X500Principal> list = new ArrayList<>();
        for (String dn : value.split(";")) {
            if (dn.isBlank()) {
                continue;
            }
            try {
                list.add(new X500Principal(dn.strip()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + ": '" + dn.strip() + "' is not a distinguished name ("
                        + e.getMessage() + "), e.g. CN=alice,OU=Users,O=Example", e);
            }
        }
        return list;
    }

    /**
     * The server's TLS context: its key store ({@link ReloadingKeyManager}) and, when certificates are accepted, the
     * client trust store ({@link ReloadingTrustManager}), both read again when their file changes.
     *
     * @param watched told of each file read again (for its reload failures on the daemon's metrics)
     * @throws IllegalArgumentException naming the key and the file, never the password
     */
    SSLContext sslContext(Consumer<WatchedFile<?>> watched) {
        Path file = keyStore.orElseThrow(() -> new IllegalStateException("no key store: plain HTTP"));
        try (InputStream in = Files.newInputStream(file)) {
            in.read();
        } catch (IOException e) {
            throw new IllegalArgumentException(prefix + "keystore: cannot read key store " + file + ": "
                    + FileReason.of(e), e);
        }
        try {
            KeyStore ks = KeyStore.getInstance(file.toFile(), keyStorePassword.toCharArray());
            if (!ks.aliases().hasMoreElements() || java.util.Collections.list(ks.aliases()).stream()
                    .noneMatch(a -> isKey(ks, a))) {
                throw new IllegalArgumentException(prefix + "keystore: " + file + " holds no private key (it must"
                        + " hold the server's certificate and its key)");
            }
            // read again when the file changes: a renewed certificate is served without a restart
            ReloadingKeyManager keys = new ReloadingKeyManager(file, keyStorePassword, prefix + "keystore");
            watched.accept(keys.file());
            TrustManager[] trust = null;
            if (mechanisms.contains(Mechanism.CERTIFICATE) && clientTrust != null) {
                ReloadingTrustManager clients = new ReloadingTrustManager(clientTrust, prefix + "truststore");
                watched.accept(clients.file());
                trust = new TrustManager[] {clients};
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keys}, trust, null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(prefix + "keystore: cannot use key store " + file + ": "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + " (check the file and " + prefix + "keystore.password.file)", e);
        }
    }

    private static boolean isKey(KeyStore ks, String alias) {
        try {
            return ks.isKeyEntry(alias);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** Names no file: the key store and keytab are paths to secrets, and the daemons show their configuration. */
    @Override
    public String toString() {
        return "HttpAccess[" + scheme() + ", auth " + (mechanisms.isEmpty() ? "none" : mechanisms)
                + (kerberosPrincipal == null || kerberosPrincipal.isEmpty() ? "" : ", principal " + kerberosPrincipal)
                + metricsPort.map(p -> ", metrics bind " + (metricsHost.isEmpty() ? "<main host>" : metricsHost)
                + ":" + p).orElse("") + "]";
    }
}
