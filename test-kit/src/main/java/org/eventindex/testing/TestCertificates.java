package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;

/**
 * A fresh self-signed server certificate for 127.0.0.1 / localhost, made with the JDK's {@code keytool} in a test
 * folder: the server's key store and a trust store holding only that certificate (both PKCS12), and a 0600 file with
 * the trust store's password, as a client deployment would have them.
 */
public record TestCertificates(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword,
                               Path trustStorePasswordFile) {

    public static TestCertificates create(Path dir) {
        requireNonNull(dir, "dir is null");
        try {
            Files.createDirectories(dir);
            String keyPw = "key-" + Long.toHexString(System.nanoTime());
            String trustPw = "trust-" + Long.toHexString(System.nanoTime());
            Path keyStore = dir.resolve("server.p12");
            Path cert = dir.resolve("server.pem");
            Path trustStore = dir.resolve("trust.p12");
            keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                    "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                    "-keystore", keyStore.toString(), "-storepass", keyPw);
            keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", keyStore.toString(), "-storepass", keyPw,
                    "-file", cert.toString());
            keytool("-importcert", "-noprompt", "-alias", "server", "-file", cert.toString(), "-storetype", "PKCS12",
                    "-keystore", trustStore.toString(), "-storepass", trustPw);
            // Mode 0600 from the start, as the runtime's SecretFile.write makes it (the kit does not depend on the
            // runtime module, whose own tests use the kit).
            Path pwFile = Files.createFile(dir.resolve("trust.pw"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(pwFile, trustPw + "\n");
            return new TestCertificates(keyStore, keyPw, trustStore, trustPw, pwFile);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create test certificates in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Key managers serving the certificate (for a broker's SSL context). */
    public KeyManager[] keyManagers() {
        try {
            KeyStore ks = KeyStore.getInstance(keyStore.toFile(), keyStorePassword.toCharArray());
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, keyStorePassword.toCharArray());
            return kmf.getKeyManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load test key store " + keyStore, e);
        }
    }

    private static void keytool(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: " + new String(out));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running keytool", e);
        }
    }

    @Override
    public String toString() {
        return "TestCertificates[" + keyStore + ", " + trustStore + "]";
    }
}
