package org.eventindex.ops;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * The HTTPS server's key manager, read again from its key store file when the file changes (modification time, size,
 * inode): a renewed certificate installed in place (moved over the file in one step, same password) is served from
 * the next TLS handshake, without a restart; connections already open keep theirs. A changed file that cannot be used
 * (half written, wrong password, no key) keeps the previous certificate in use and logs one WARN per change.
 * One {@code stat} per handshake.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);

    private final Path file;
    private final char[] password;
    private final String what;
    private volatile X509ExtendedKeyManager current;
    private volatile Object stamp;
    private volatile Object refused;

    /** Loads {@code file} now; {@code what} names it in the log (the configuration key). */
    ReloadingKeyManager(Path file, String password, String what) throws IOException, GeneralSecurityException {
        this.file = Objects.requireNonNull(file, "file is null");
        this.password = Objects.requireNonNull(password, "password is null").toCharArray();
        this.what = Objects.requireNonNull(what, "what is null");
        this.stamp = stamp(file);
        this.current = load();
    }

    private X509ExtendedKeyManager load() throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(file.toFile(), password);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        for (KeyManager k : kmf.getKeyManagers()) {
            if (k instanceof X509ExtendedKeyManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 key manager for " + file);
    }

    /** The key manager of the file as it is now (reloaded once per change). */
    private X509ExtendedKeyManager current() {
        Object now;
        try {
            now = stamp(file);
        } catch (IOException e) {
            return current; // moved away for an instant, or gone: the certificate in use stays
        }
        if (now.equals(stamp) || now.equals(refused)) {
            return current;
        }
        synchronized (this) {
            if (!now.equals(stamp) && !now.equals(refused)) {
                try {
                    X509ExtendedKeyManager next = load();
                    if (next.getServerAliases("EC", null) == null && next.getServerAliases("RSA", null) == null) {
                        throw new GeneralSecurityException("it holds no private key");
                    }
                    current = next;
                    stamp = now;
                    refused = null;
                    LOG.info("{}: key store {} changed; its certificate is served from the next connection", what,
                            file);
                } catch (IOException | GeneralSecurityException | RuntimeException e) {
                    refused = now;
                    LOG.warn("{}: key store {} changed but cannot be used ({}); the previous certificate stays in"
                            + " use until the file is fixed", what, file, e.toString());
                }
            }
        }
        return current;
    }

    private static Object stamp(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return List.of(a.lastModifiedTime().toInstant(), a.size(), String.valueOf(a.fileKey()));
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return current().getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return current().chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return current().getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return current().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return current().chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return current().chooseEngineClientAlias(keyType, issuers, engine);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return current.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return current.getPrivateKey(alias);
    }
}
