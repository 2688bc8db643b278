package org.eventindex.cluster.testing;

import org.eventindex.testing.Await;
import org.eventindex.testing.Ports;
import org.eventindex.testing.Prerequisites;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real MIT Kerberos KDC (Debian's {@code krb5kdc}, {@code kdb5_util}, {@code kadmin.local}) in a folder of its own:
 * its realm, database, {@code kdc.conf} and {@code krb5.conf} there, listening on a free port on 127.0.0.1, with a
 * ticket lifetime of the test's choosing (ordinary minutes for tests that move the login's clock, seconds for
 * {@code bin/kerberos-soak}, which watches real renewals). Principals and keytabs are made with {@code kadmin.local}.
 * A JVM that talks to it needs {@code -Djava.security.krb5.conf=}{@link #krb5Conf()} before its first Kerberos call.
 */
public final class MitKdc implements AutoCloseable {
    public static final String REALM = "EVENTINDEX.TEST";
    private static final List<Path> SBIN = List.of(Path.of("/usr/sbin"), Path.of("/usr/bin"), Path.of("/sbin"));
    private static final String ENCTYPES = "aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal";

    private final Path dir;
    private final int port;
    private final Duration ticketLifetime;
    private volatile Process kdc;

    private MitKdc(Path dir, int port, Duration ticketLifetime, Process kdc) {
        this.dir = dir;
        this.port = port;
        this.ticketLifetime = ticketLifetime;
        this.kdc = kdc;
    }

    /**
     * Whether the KDC binaries are installed; fails the test under CI when they are not (.ci/run installs them),
     * skips it elsewhere.
     */
    public static void requireInstalled() {
        Prerequisites.require(SBIN.stream().anyMatch(d -> Files.isExecutable(d.resolve("krb5kdc")))
                        && SBIN.stream().anyMatch(d -> Files.isExecutable(d.resolve("kadmin.local"))),
                "MIT Kerberos KDC binaries (krb5kdc, kdb5_util, kadmin.local): apt-get install krb5-kdc"
                        + " krb5-admin-server krb5-user");
    }

    /**
     * Creates the realm's database in {@code dir} and starts the KDC.
     *
     * @param ticketLifetime the longest ticket the KDC grants (whole seconds)
     */
    public static MitKdc start(Path dir, Duration ticketLifetime) throws IOException, InterruptedException {
        requireInstalled();
        Files.createDirectories(dir);
        int port = Ports.freeForRestart(); // restart() binds it again
        long life = Math.max(1, ticketLifetime.toSeconds());
        Path db = dir.resolve("principal");
        Files.writeString(dir.resolve("kdc.conf"), String.join("\n",
                "[kdcdefaults]",
                " kdc_ports = " + port,
                " kdc_tcp_ports = " + port,
                "[realms]",
                " " + REALM + " = {",
                "  database_name = " + db,
                "  key_stash_file = " + dir.resolve("stash"),
                "  acl_file = " + dir.resolve("kadm5.acl"),
                "  max_life = " + life + "s",
                "  max_renewable_life = 0s",
                "  supported_enctypes = " + ENCTYPES,
                " }",
                "[logging]",
                " kdc = FILE:" + dir.resolve("krb5kdc.log"),
                ""), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("kadm5.acl"), "", StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("krb5.conf"), String.join("\n",
                "[libdefaults]",
                " default_realm = " + REALM,
                " dns_lookup_realm = false",
                " dns_lookup_kdc = false",
                " rdns = false",
                // Kudu's servers accept tickets for kudu/<any name of this host> (clients name it by its IP's name)
                " ignore_acceptor_hostname = true",
                " dns_canonicalize_hostname = false",
                " udp_preference_limit = 1",
                " ticket_lifetime = " + life + "s",
                " renew_lifetime = 0s",
                " default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
                " default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
                " permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96",
                "[realms]",
                " " + REALM + " = {",
                "  kdc = 127.0.0.1:" + port,
                " }",
                "[domain_realm]",
                " 127.0.0.1 = " + REALM,
                " localhost = " + REALM,
                ""), StandardCharsets.UTF_8);
        run(dir, List.of(binary("kdb5_util"), "create", "-s", "-r", REALM, "-P", "masterkey-" + port));
        MitKdc started = new MitKdc(dir, port, ticketLifetime, launch(dir));
        try {
            started.awaitListening();
            // the ticket-granting service's own lifetime caps every ticket too
            started.kadmin("modprinc -maxlife " + life + "s krbtgt/" + REALM + "@" + REALM);
            return started;
        } catch (RuntimeException | IOException | InterruptedException e) {
            started.close();
            throw e;
        }
    }

    private static Process launch(Path dir) throws IOException {
        ProcessBuilder kdcCommand = new ProcessBuilder(binary("krb5kdc"), "-n", "-r", REALM)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("krb5kdc.out").toFile()))
                .directory(dir.toFile());
        kdcCommand.environment().putAll(env(dir));
        return kdcCommand.start();
    }

    /**
     * Stops the KDC process (the realm's database, the keytabs and the port stay): clients get a refused connection,
     * as during a KDC's maintenance. {@link #restart()} starts it again.
     */
    public void stop() {
        close();
    }

    /** Starts the KDC again on the same port with the same database, after {@link #stop()}. */
    public void restart() throws IOException {
        if (kdc.isAlive()) {
            return;
        }
        kdc = launch(dir);
        awaitListening();
    }

    private void awaitListening() {
        Process kdc = this.kdc;
        Await.until("the KDC listening on 127.0.0.1:" + port, Duration.ofSeconds(30), () -> {
            if (!kdc.isAlive()) {
                throw new IllegalStateException("krb5kdc exited with " + kdc.exitValue() + "; see "
                        + dir.resolve("krb5kdc.out") + " and " + dir.resolve("krb5kdc.log"));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /**
     * {@link #start} for clients in this JVM: also points {@code java.security.krb5.conf} at its krb5.conf, which the
     * JVM reads at its first Kerberos call (so one KDC per JVM: failsafe's {@code reuseForks=false}).
     */
    public static MitKdc startForThisJvm(Path dir, Duration ticketLifetime) throws IOException, InterruptedException {
        MitKdc kdc = start(dir, ticketLifetime);
        System.setProperty("java.security.krb5.conf", kdc.krb5Conf().toString());
        return kdc;
    }

    /** Adds {@code principal} (e.g. {@code hdfs/localhost}) with random keys and writes them to a new keytab. */
    public Path keytab(String principal, Path keytab) throws IOException, InterruptedException {
        return keytab(keytab, List.of(principal));
    }

    /** Adds the principals with random keys and writes all their keys to one new keytab. */
    public Path keytab(Path keytab, List<String> principals) throws IOException, InterruptedException {
        Files.createDirectories(keytab.toAbsolutePath().getParent());
        Files.deleteIfExists(keytab);
        for (String principal : principals) {
            kadmin("addprinc -randkey -maxlife " + Math.max(1, ticketLifetime.toSeconds()) + "s " + principal);
            kadmin("ktadd -k " + keytab + " -norandkey " + principal);
        }
        if (!Files.isRegularFile(keytab)) {
            throw new IOException("kadmin.local wrote no keytab " + keytab + " for " + principals + "; see the"
                    + " cmd*.out files in " + dir);
        }
        // owner-only, as the daemons require of a keytab (KerberosLogin refuses a group- or world-readable one)
        Files.setPosixFilePermissions(keytab, PosixFilePermissions.fromString("rw-------"));
        return keytab;
    }

    /** The full name of {@code principal} in this realm. */
    public static String inRealm(String principal) {
        return principal + "@" + REALM;
    }

    /** Runs one {@code kadmin.local} query. */
    public void kadmin(String query) throws IOException, InterruptedException {
        run(dir, List.of(binary("kadmin.local"), "-r", REALM, "-q", query));
    }

    /**
     * Tickets the KDC has issued to {@code principal} in AS exchanges (logins with its key: a first login or a
     * renewal from a keytab), from the KDC's log ({@code ISSUE} lines of {@code AS_REQ}s for the principal).
     */
    public long ticketsIssued(String principal) {
        try {
            return Files.readAllLines(dir.resolve("krb5kdc.log"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains("AS_REQ") && l.contains("ISSUE:") && l.contains(" " + principal + " for "))
                    .count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read the KDC's log in " + dir, e);
        }
    }

    /** The krb5.conf clients of this KDC read ({@code -Djava.security.krb5.conf}, {@code KRB5_CONFIG}). */
    public Path krb5Conf() {
        return dir.resolve("krb5.conf");
    }

    /** The environment of an MIT Kerberos program of this realm (krb5.conf and kdc.conf). */
    public Map<String, String> environment() {
        return env(dir);
    }

    public int port() {
        return port;
    }

    public Duration ticketLifetime() {
        return ticketLifetime;
    }

    public Path dir() {
        return dir;
    }

    private static Map<String, String> env(Path dir) {
        return Map.of("KRB5_CONFIG", dir.resolve("krb5.conf").toString(),
                "KRB5_KDC_PROFILE", dir.resolve("kdc.conf").toString());
    }

    private static void run(Path dir, List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "cmd", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                .directory(dir.toFile());
        pb.environment().putAll(env(dir));
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in 60 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed with " + p.exitValue() + ": "
                    + Files.readString(out, StandardCharsets.UTF_8));
        }
    }

    private static String binary(String name) {
        for (Path d : SBIN) {
            Path b = d.resolve(name);
            if (Files.isExecutable(b)) {
                return b.toString();
            }
        }
        throw new IllegalStateException(name + " not found in " + SBIN);
    }

    @Override
    public void close() {
        kdc.destroy();
        try {
            if (!kdc.waitFor(10, TimeUnit.SECONDS)) {
                kdc.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kdc.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return "MitKdc[" + REALM + " on 127.0.0.1:" + port + ", tickets " + ticketLifetime + ", " + dir + "]";
    }
}
