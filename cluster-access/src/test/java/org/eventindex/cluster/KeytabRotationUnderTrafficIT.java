package org.eventindex.cluster;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.conf.Configuration;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.cluster.testing.MovableClock;
import org.eventindex.ops.CredentialFiles;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.HttpAccess;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.testing.Await;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A daemon's keytab rotated with a new kvno while it works (docs/security.md, "Keytab"), on a real MIT KDC: the
 * daemon logs in from one keytab holding its principal ({@code eventindex/localhost}, {@link KerberosLogin}, renewed
 * against a {@link MovableClock}) and its HTTP server's ({@code HTTP/localhost}, SPNEGO); all along, alice asks the
 * server with a ticket from a login of her own made for each request, and the daemon asks the KDC for a service ticket
 * with its ticket-granting ticket for each request (as its Kudu and HDFS clients negotiate). The new keys
 * ({@code cpw -randkey -keepold}), the keytab exported to a file beside the daemon's and moved over it, a renewal from
 * it, the old keys purged at the KDC, another renewal; then the server's principal, its new key staged first
 * ({@code ktutil addent -password} with the next kvno, the keytab moved in, then {@code cpw -pw -keepold} at the KDC,
 * then the old key purged): no request fails, no renewal fails, no restart; the keytab of before is refused by the KDC
 * at the end. Runs in a JVM of its own (the JVM reads the KDC's krb5.conf once). About
 * 5 s.
 */
class KeytabRotationUnderTrafficIT {
    private static final Oid SPNEGO = oid("1.3.6.1.5.5.2");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void requestsAreAnsweredThroughoutTheRotationOfBothPrincipalsOfADaemonsKeytab() throws Exception {
        try (MitKdc kdc = MitKdc.startForThisJvm(dir.resolve("kdc"), Duration.ofMinutes(10))) {
            String daemon = MitKdc.inRealm("eventindex/localhost");
            String http = MitKdc.inRealm("HTTP/localhost");
            Path keytab = kdc.keytab(dir.resolve("daemon.keytab"), List.of("eventindex/localhost", "HTTP/localhost"));
            Path before = Files.copy(keytab, dir.resolve("daemon-before.keytab"));
            Path aliceKeytab = kdc.keytab("alice", dir.resolve("alice.keytab"));
            int oldKvno = KerberosLoginIT.kvno(keytab, daemon);

            MovableClock clock = new MovableClock();
            PrometheusRegistry registry = new PrometheusRegistry();
            HttpAccess access = HttpAccess.load(Files.writeString(dir.resolve("http.properties"),
                    "lookup.http.auth=kerberos\n"
                    + "lookup.http.kerberos.principal=" + http + "\n"
                    + "lookup.http.kerberos.keytab=" + keytab + "\n"), "lookup.");
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger answered = new AtomicInteger();
            List<String> failures = new CopyOnWriteArrayList<>();
            try (ClusterAccess cluster = ClusterAccess.open(ClusterSettings.of(null, daemon, keytab.toString(),
                    Map.of(), ClusterSettings.Names.keys("lookup.")), new Configuration(), registry, clock)) {
                KerberosLogin login = cluster.login().orElseThrow();
                OpsHttpServer server = new OpsHttpServer(new InetSocketAddress("localhost", 0), 2, registry,
                        OpsHttpServer.Readiness::ok, OpsHttpServer.Readiness::ok, access);
                server.start();
                URI health = URI.create("http://localhost:" + server.port() + "/health");
                Thread traffic = new Thread(() -> {
                    while (running.get()) {
                        try {
                            assertEquals(200, ask(health, login(MitKdc.inRealm("alice"), aliceKeytab)), "alice");
                            dropServiceTickets(login.subject());
                            assertEquals(200, ask(health, login.subject()), "the daemon's own login");
                            answered.incrementAndGet();
                        } catch (Exception | Error e) {
                            failures.add(e.toString());
                        }
                    }
                }, "kerberos-traffic");
                try {
                    traffic.start();
                    awaitMore(answered, "requests before the rotation");

                    kdc.kadmin("cpw -randkey -keepold " + daemon);
                    Path exported = dir.resolve("daemon.keytab.new");
                    kdc.kadmin("ktadd -k " + exported + " -norandkey " + daemon + " " + http);
                    Files.setPosixFilePermissions(exported, PosixFilePermissions.fromString("rw-------"));
                    Files.move(exported, keytab, StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                    int newKvno = KerberosLoginIT.kvno(keytab, daemon);
                    assertTrue(newKvno > oldKvno, "a new kvno: " + oldKvno + " -> " + newKvno);
                    awaitMore(answered, "requests with the new keytab in place");

                    KerberosTicket first = login.ticket().orElseThrow();
                    KerberosTicket renewed = KerberosLoginIT.renew(login, clock);
                    assertNotSame(first, renewed);
                    awaitMore(answered, "requests after the renewal from the new keytab");

                    kdc.kadmin("purgekeys -keepkvno " + newKvno + " " + daemon);
                    assertNotSame(renewed, KerberosLoginIT.renew(login, clock), "renewed with only the new keys");
                    awaitMore(answered, "requests after the old keys were purged");

                    // the server's principal: the new key staged in the keytab before the KDC issues tickets of it
                    int httpKvno = KerberosLoginIT.kvno(keytab, http);
                    String password = "rotated-" + Long.toHexString(System.nanoTime());
                    Path staged = dir.resolve("daemon.keytab.staged");
                    ktutil("rkt " + keytab + "\n"
                            + addent(http, httpKvno + 1, "aes256-cts-hmac-sha1-96", password)
                            + addent(http, httpKvno + 1, "aes128-cts-hmac-sha1-96", password)
                            + "wkt " + staged + "\nq\n");
                    Files.setPosixFilePermissions(staged, PosixFilePermissions.fromString("rw-------"));
                    Files.move(staged, keytab, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    awaitMore(answered, "requests with the staged key in the server's keytab");
                    kdc.kadmin("cpw -pw " + password + " -keepold " + http);
                    // from here on every new ticket for HTTP/localhost is of the staged kvno: only its key reads it
                    awaitMore(answered, "requests with tickets of the server's new key");
                    kdc.kadmin("purgekeys -keepkvno " + (httpKvno + 1) + " " + http);
                    awaitMore(answered, "requests after the server's old key was purged");
                } finally {
                    running.set(false);
                    traffic.join();
                    server.close();
                }
                assertEquals(List.of(), failures, "every request answered during the rotation");
                assertEquals(0, login.failures(), "no renewal failed");
                assertEquals(0, DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES));
                double age = DaemonMetrics.value(registry, CredentialFiles.AGE, "key", "lookup.http.kerberos.keytab",
                        "kind", "keytab");
                assertTrue(age >= 0 && age < 60, "the keytab's age restarted at the move: " + age);
            }
            LoginException refused = assertThrows(LoginException.class, () -> login(daemon, before));
            assertTrue(KerberosLogin.reason(refused).contains("the KDC refused the keytab's key"),
                    KerberosLogin.reason(refused));
        }
    }

    private static String addent(String principal, int kvno, String enctype, String password) {
        return "addent -password -p " + principal + " -k " + kvno + " -e " + enctype + "\n" + password + "\n";
    }

    /** Runs MIT's {@code ktutil} with {@code commands} on its standard input (the password prompts read it too). */
    private static void ktutil(String commands) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ktutil").redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(commands.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "ktutil: " + out);
    }

    private static void awaitMore(AtomicInteger answered, String what) {
        int from = answered.get();
        Await.until(what, WAIT, () -> answered.get() >= from + 3);
    }

    /** The service tickets cached in {@code subject}: without them the next request needs a new one from the KDC. */
    private static void dropServiceTickets(Subject subject) {
        synchronized (subject.getPrivateCredentials()) {
            subject.getPrivateCredentials().removeIf(o -> o instanceof KerberosTicket t
                    && !t.getServer().getName().startsWith("krbtgt/"));
        }
    }

    /** A new login of {@code principal} from {@code keytab} with the JDK's Kerberos (a client of the server). */
    private static Subject login(String principal, Path keytab) throws LoginException {
        Subject subject = new Subject();
        Map<String, String> options = Map.of("useKeyTab", "true", "keyTab", keytab.toString(), "principal", principal,
                "storeKey", "false", "doNotPrompt", "true", "isInitiator", "true");
        new LoginContext("client", subject, null, new javax.security.auth.login.Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[]{new AppConfigurationEntry(
                        "com.sun.security.auth.module.Krb5LoginModule",
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
            }
        }).login();
        return subject;
    }

    /** One request with {@code Authorization: Negotiate} from {@code subject}'s tickets; the status. */
    private static int ask(URI uri, Subject subject) throws Exception {
        byte[] token = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> {
            GSSManager manager = GSSManager.getInstance();
            GSSContext context = manager.createContext(manager.createName("HTTP@localhost",
                    GSSName.NT_HOSTBASED_SERVICE), SPNEGO, null, GSSContext.DEFAULT_LIFETIME);
            try {
                return context.initSecContext(new byte[0], 0, 0);
            } finally {
                context.dispose();
            }
        });
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setRequestProperty("Authorization", "Negotiate " + Base64.getEncoder().encodeToString(token));
        try {
            int code = c.getResponseCode();
            try (var body = code < 400 ? c.getInputStream() : c.getErrorStream()) {
                if (body != null) {
                    body.readAllBytes();
                }
            }
            return code;
        } catch (IOException e) {
            throw new IOException("request to " + uri + " failed: " + e, e);
        } finally {
            c.disconnect();
        }
    }

    private static Oid oid(String s) {
        try {
            return new Oid(s);
        } catch (org.ietf.jgss.GSSException e) {
            throw new IllegalStateException(e);
        }
    }
}
