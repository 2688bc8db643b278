package org.eventindex.ops;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;

/**
 * The HTTPS server's key manager, read again from its key store file when the file changes (modification time, size,
 * inode): a renewed certificate installed in place (moved over the file in one step, same password) is served from
 * the next TLS handshake, without a restart; connections already open keep theirs. A changed file that cannot be used
 * (half written, wrong password, no key) keeps the previous certificate in use, logs one WARN per change and counts
 * in {@value CredentialFiles#RELOAD_FAILURES} ({@link WatchedFile}). One {@code stat} per handshake.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private final WatchedFile<X509ExtendedKeyManager> keys;

    /** Loads {@code file} now; {@code what} names it in the log and the metric (the configuration key). */
    ReloadingKeyManager(Path file, String password, String what) throws IOException, GeneralSecurityException {
        char[] secret = Objects.requireNonNull(password, "password is null").toCharArray();
        this.keys = new WatchedFile<>(file, what, "key store", "its certificate is served from the next connection",
                f -> load(f, secret));
    }

    private static X509ExtendedKeyManager load(Path file, char[] password)
            throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(file.toFile(), password);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        for (KeyManager k : kmf.getKeyManagers()) {
            if (k instanceof X509ExtendedKeyManager x) {
                if (x.getServerAliases("EC", null) == null && x.getServerAliases("RSA", null) == null) {
                    throw new GeneralSecurityException("it holds no private key");
                }
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 key manager for " + file);
    }

    /** The file's changes that could not be used. */
    WatchedFile<X509ExtendedKeyManager> file() {
        return keys;
    }

    private X509ExtendedKeyManager current() {
        return keys.get();
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
        return keys.current().getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return keys.current().getPrivateKey(alias);
    }
}
