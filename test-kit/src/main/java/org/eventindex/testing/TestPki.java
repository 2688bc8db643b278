package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made with {@code openssl} in a test folder, as a site's: its certificate ({@link #caPem()}),
 * server certificates for a host name and client certificates for a subject, each as PEM (for curl) and PKCS12 (for a
 * Java key store), and a PKCS12 trust store of the CA. Every password is in a mode-0600 file handed to openssl and
 * keytool as a file ({@code -passout file:}, {@code -storepass:file}), never on a command line.
 */
public final class TestPki {
    private final Path dir;
    private final String name;
    private final Path passwordFile;
    private final String password;

    private TestPki(Path dir, String name, Path passwordFile, String password) {
        this.dir = dir;
        this.name = name;
        this.passwordFile = passwordFile;
        this.password = password;
    }

    /** A new CA {@code CN=<name> CA,O=EventIndex Test} in {@code dir/<name>}. */
    public static TestPki create(Path dir, String name) throws IOException {
        requireNonNull(dir, "dir is null");
        Path home = Files.createDirectories(dir.resolve(name));
        String password = "pw-" + name + "-" + Long.toHexString(System.nanoTime());
        Path pw = Files.createFile(home.resolve("password"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(pw, password + "\n", StandardCharsets.UTF_8);
        TestPki pki = new TestPki(home, name, pw, password);
        pki.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", home.resolve("ca.key").toString(), "-out", pki.caPem().toString(), "-days", "2",
                "-subj", "/O=EventIndex Test/CN=" + name + " CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        pki.keytool("-importcert", "-noprompt", "-alias", "ca", "-file", pki.caPem().toString(), "-storetype",
                "PKCS12", "-keystore", pki.trustStore().toString(), "-storepass:file", pw.toString());
        return pki;
    }

    /** A server certificate for {@code host} (and 127.0.0.1), signed by this CA. */
    public Issued server(String host) throws IOException {
        return issue("server-" + host, "/O=EventIndex Test/CN=" + host,
                "subjectAltName=DNS:" + host + ",IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    }

    /** A client certificate for the subject {@code CN=<cn>,OU=Users,O=EventIndex Test}, signed by this CA. */
    public Issued client(String cn) throws IOException {
        return issue("client-" + cn, "/O=EventIndex Test/OU=Users/CN=" + cn, "extendedKeyUsage=clientAuth\n");
    }

    private Issued issue(String id, String subject, String extensions) throws IOException {
        Path key = dir.resolve(id + ".key");
        Path csr = dir.resolve(id + ".csr");
        Path cert = dir.resolve(id + ".pem");
        Path ext = Files.writeString(dir.resolve(id + ".ext"), extensions, StandardCharsets.UTF_8);
        Path p12 = dir.resolve(id + ".p12");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.toString(),
                "-out", csr.toString(), "-subj", subject);
        openssl("x509", "-req", "-in", csr.toString(), "-CA", caPem().toString(), "-CAkey",
                dir.resolve("ca.key").toString(), "-CAcreateserial", "-days", "2", "-extfile", ext.toString(),
                "-out", cert.toString());
        openssl("pkcs12", "-export", "-inkey", key.toString(), "-in", cert.toString(), "-certfile",
                caPem().toString(), "-name", id, "-out", p12.toString(), "-passout", "file:" + passwordFile);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        return new Issued(cert, key, p12, passwordFile);
    }

    /** The CA's certificate (PEM), for {@code curl --cacert}. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** A PKCS12 trust store holding only the CA, its password in {@link #passwordFile()}. */
    public Path trustStore() {
        return dir.resolve("ca-truststore.p12");
    }

    /** The mode-0600 file of every password of this CA's stores. */
    public Path passwordFile() {
        return passwordFile;
    }

    /** That password, for a client built in the test's JVM. */
    public String password() {
        return password;
    }

    /**
     * One issued certificate.
     *
     * @param certificate the certificate (PEM), {@code curl --cert}
     * @param key         its private key (PEM, unencrypted, mode 0600), {@code curl --key}
     * @param keyStore    both in PKCS12, with the CA's certificate, password in {@code passwordFile}
     */
    public record Issued(Path certificate, Path key, Path keyStore, Path passwordFile) {
    }

    private void openssl(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private void keytool(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).directory(dir.toFile()).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd.subList(0, 2)) + " failed in " + dir + ": "
                        + new String(out, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + cmd.get(0), e);
        }
    }

    @Override
    public String toString() {
        return "TestPki[" + name + " in " + dir + "]";
    }
}
