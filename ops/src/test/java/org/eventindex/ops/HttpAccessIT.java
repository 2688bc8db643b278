package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.testing.Prerequisites;
import org.eventindex.testing.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The daemons' HTTP server over TLS with authentication, against a real MIT KDC and certificates made by openssl for
 * this run, from real clients: curl ({@code --negotiate} with a ticket from kinit, {@code --cert}) and headless
 * Chromium (Negotiate for the hosts of {@code --auth-server-allowlist}). Two servers built from properties files as a
 * site writes them: one taking Kerberos or an allowed certificate, with a plain metrics bind beside it; one taking
 * certificates only.
 */
class HttpAccessIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String ALICE = MitKdc.inRealm("alice");
    private static final String ALICE_DN = "CN=alice,OU=Users,O=EventIndex Test";

    @TempDir
    static Path dir;
    private static MitKdc kdc;
    private static TestPki site;
    private static TestPki.Issued alice;
    private static TestPki.Issued mallory;
    private static TestPki.Issued eve;
    private static Path ticketCache;
    private static Path httpKeytab;
    private static OpsHttpServer both;
    private static OpsHttpServer certificatesOnly;
    private static OpsHttpServer bobOnly;

    @BeforeAll
    static void start() throws Exception {
        Prerequisites.require(onPath("curl") && onPath("openssl") && onPath("kinit"),
                "curl (with GSS-API), openssl and kinit: apt-get install curl openssl krb5-user");
        kdc = MitKdc.startForThisJvm(dir.resolve("kdc"), Duration.ofMinutes(10));
        httpKeytab = kdc.keytab("HTTP/localhost", dir.resolve("http.keytab"));
        Path aliceKeytab = kdc.keytab("alice", dir.resolve("alice.keytab"));
        ticketCache = dir.resolve("alice.ccache");
        run(List.of("kinit", "-k", "-t", aliceKeytab.toString(), ALICE), kerberosEnv(ticketCache));

        site = TestPki.create(dir, "site");
        TestPki.Issued server = site.server("localhost");
        alice = site.client("alice");
        mallory = site.client("mallory");
        eve = TestPki.create(dir, "rogue").client("eve");

        String tls = "lookup.http.tls=true\n"
                + "lookup.http.keystore=" + server.keyStore() + "\n"
                + "lookup.http.keystore.password.file=" + site.passwordFile() + "\n"
                + "lookup.http.truststore=" + site.trustStore() + "\n"
                + "lookup.http.truststore.password.file=" + site.passwordFile() + "\n"
                + "lookup.http.allowed.subjects=" + ALICE_DN + "\n";
        both = server(HttpAccess.load(Files.writeString(dir.resolve("both.properties"), tls
                + "lookup.http.auth=kerberos,certificate\n"
                + "lookup.http.kerberos.principal=" + MitKdc.inRealm("HTTP/localhost") + "\n"
                + "lookup.http.kerberos.keytab=" + httpKeytab + "\n"
                + "lookup.http.metrics.host=127.0.0.1\n"
                + "lookup.http.metrics.port=0\n"), "lookup."));
        bobOnly = server(HttpAccess.load(Files.writeString(dir.resolve("bob.properties"), "lookup.http.auth=kerberos\n"
                + "lookup.http.kerberos.principal=" + MitKdc.inRealm("HTTP/localhost") + "\n"
                + "lookup.http.kerberos.keytab=" + httpKeytab + "\n"
                + "lookup.http.allowed.principals=" + MitKdc.inRealm("bob") + ",@OTHER.REALM\n"), "lookup."));
        certificatesOnly = server(HttpAccess.load(Files.writeString(dir.resolve("certificates.properties"), tls
                + "lookup.http.auth=certificate\n"), "lookup."));
    }

    private static OpsHttpServer server(HttpAccess access) throws IOException {
        OpsHttpServer s = new OpsHttpServer(new InetSocketAddress("localhost", 0), 2, new PrometheusRegistry(),
                OpsHttpServer.Readiness::ok, OpsHttpServer.Readiness::ok, access);
        s.handle("/whoami", ex -> {
            byte[] body = ("user: " + OpsHttpServer.user(ex).orElse("(none)") + "\n")
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        s.start();
        return s;
    }

    @AfterAll
    static void stop() {
        for (OpsHttpServer s : new OpsHttpServer[]{both, certificatesOnly, bobOnly}) {
            if (s != null) {
                s.close();
            }
        }
        if (kdc != null) {
            kdc.close();
        }
    }

    @Test
    void curlWithAKerberosTicketGets200AsItsPrincipalAndWithoutOneGets401Negotiate() throws Exception {
        Curl in = curl(kerberosEnv(ticketCache), "--negotiate", "-u", ":", url(both, "/whoami"));
        assertEquals(200, in.status(), in.toString());
        assertEquals("user: " + ALICE, in.body().strip());

        Curl out = curl(kerberosEnv(dir.resolve("no-such.ccache")), "--negotiate", "-u", ":", url(both, "/whoami"));
        assertEquals(401, out.status(), out.toString());
        assertTrue(out.headers().toLowerCase(java.util.Locale.ROOT).contains("www-authenticate: negotiate"),
                out.headers());
        assertEquals(401, curl(Map.of(), url(both, "/metrics")).status(), "the main bind's /metrics too");

        Curl notAllowed = curl(kerberosEnv(ticketCache), "--negotiate", "-u", ":",
                "http://localhost:" + bobOnly.port() + "/whoami");
        assertEquals(403, notAllowed.status(), "a valid ticket of a principal not allowed: " + notAllowed);
    }

    @Test
    void aNewKeyVersionInTheKeytabIsUsedWithoutARestart() throws Exception {
        // rotate HTTP/localhost: new random keys (kvno + 1) appended to the server's keytab, the old ones kept
        kdc.kadmin("ktadd -k " + httpKeytab + " HTTP/localhost");
        Path fresh = dir.resolve("alice-after-rotation.ccache");
        run(List.of("kinit", "-k", "-t", dir.resolve("alice.keytab").toString(), ALICE), kerberosEnv(fresh));
        Curl in = curl(kerberosEnv(fresh), "--negotiate", "-u", ":", url(both, "/whoami"));
        assertEquals(200, in.status(), "a ticket for the new key version: " + in);
        assertEquals("user: " + ALICE, in.body().strip());
    }

    @Test
    void anAllowedClientCertificateIsTheUserOthersAreRefused() throws Exception {
        Curl in = curl(Map.of(), "--cert", alice.certificate().toString(), "--key", alice.key().toString(),
                url(certificatesOnly, "/whoami"));
        assertEquals(200, in.status(), in.toString());
        assertEquals("user: " + ALICE_DN, in.body().strip());

        Curl notListed = curl(Map.of(), "--cert", mallory.certificate().toString(), "--key", mallory.key().toString(),
                url(certificatesOnly, "/whoami"));
        assertEquals(403, notListed.status(), "a certificate of the site's CA that is not allowed: " + notListed);
        Curl wrongCa = curl(Map.of(), "--cert", eve.certificate().toString(), "--key", eve.key().toString(),
                url(certificatesOnly, "/whoami"));
        assertRefusedHandshake(wrongCa, "a certificate of another CA");
        assertRefusedHandshake(curl(Map.of(), url(certificatesOnly, "/whoami")), "no certificate");

        // where Kerberos is accepted too, a client without an allowed certificate is asked for a ticket
        Curl asked = curl(Map.of(), "--cert", mallory.certificate().toString(), "--key", mallory.key().toString(),
                url(both, "/whoami"));
        assertEquals(401, asked.status(), asked.toString());
        Curl allowed = curl(Map.of(), "--cert", alice.certificate().toString(), "--key", alice.key().toString(),
                url(both, "/whoami"));
        assertEquals("user: " + ALICE_DN, allowed.body().strip(), allowed.toString());
    }

    @Test
    void plainHttpIsRefusedOnTheTlsPortAndTheMetricsBindServesOnlyMetricsWithoutAuthentication() throws Exception {
        Curl plain = curl(Map.of(), "http://localhost:" + both.port() + "/whoami");
        assertNotEquals(0, plain.exit(), plain.toString());
        assertEquals(0, plain.status(), "no HTTP answer over plain HTTP: " + plain);

        int metricsPort = both.metricsPort().orElseThrow();
        Curl metrics = curl(Map.of(), "http://127.0.0.1:" + metricsPort + "/metrics");
        assertEquals(200, metrics.status(), metrics.toString());
        assertTrue(metrics.body().contains(OpsHttpServer.READY + " 1.0"), metrics.body());
        assertEquals(200, curl(Map.of(), "http://127.0.0.1:" + metricsPort + "/ready").status());
        assertEquals(404, curl(Map.of(), "http://127.0.0.1:" + metricsPort + "/whoami").status(),
                "the open bind serves no other path");
        assertTrue(certificatesOnly.metricsPort().isEmpty());
    }

    @Test
    void chromiumWithATicketGets200AndWithoutOneGets401() throws Exception {
        Prerequisites.require(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium and its driver (" + CHROMIUM + ", " + CHROMEDRIVER + "): apt-get install"
                        + " chromium chromium-driver");
        Path cache = dir.resolve("browser.ccache");
        Files.copy(ticketCache, cache);
        // Chromium on Linux loads the GSSAPI library (it then runs its network service outside its sandbox) only
        // once a Negotiate challenge was seen, in an earlier session, as this pref of its local state records
        Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
        Files.writeString(profile.resolve("Local State"), "{\"net\":{\"received_http_auth_negotiate_headers\":true}}");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.setAcceptInsecureCerts(true); // the CA is this run's; curl checks the server's certificate
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--user-data-dir=" + profile, "--auth-server-allowlist=localhost");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().withEnvironment(kerberosEnv(cache)).build();
        ChromeDriver driver = new ChromeDriver(service, options);
        try {
            driver.get(url(both, "/whoami"));
            assertEquals("user: " + ALICE, driver.findElement(By.tagName("body")).getText().strip());
            Files.delete(cache); // kdestroy: the browser has no ticket any more
            driver.get(url(both, "/whoami?again"));
            String page = driver.findElement(By.tagName("body")).getText();
            assertFalse(page.contains(ALICE), page);
            assertTrue(page.contains("401"), "Chromium's page for a 401: " + page);
        } finally {
            driver.quit();
        }
    }

    private static void assertRefusedHandshake(Curl c, String what) {
        assertNotEquals(0, c.exit(), what + ": " + c);
        assertEquals(0, c.status(), what + " must fail the TLS handshake: " + c);
    }

    private static String url(OpsHttpServer s, String path) {
        return "https://localhost:" + s.port() + path;
    }

    private static Map<String, String> kerberosEnv(Path cache) {
        return Map.of("KRB5_CONFIG", kdc.krb5Conf().toString(), "KRB5CCNAME", "FILE:" + cache);
    }

    /**
     * @param status the HTTP status, 0 when there was no HTTP answer
     */
    private record Curl(int exit, int status, String headers, String body) {
    }

    private static Curl curl(Map<String, String> env, String... args) throws Exception {
        Path body = Files.createTempFile(dir, "body", ".txt");
        Path headers = Files.createTempFile(dir, "headers", ".txt");
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "-S", "--max-time", "20", "--cacert",
                site.caPem().toString(), "-o", body.toString(), "-D", headers.toString(), "-w", "%{http_code}"));
        cmd.addAll(List.of(args));
        Map<String, String> e = new HashMap<>(env);
        e.putIfAbsent("KRB5_CONFIG", kdc.krb5Conf().toString());
        e.putIfAbsent("KRB5CCNAME", "FILE:" + dir.resolve("none.ccache"));
        Run r = run(cmd, e);
        String code = r.out().strip();
        int status = code.matches("\\d{3}.*") ? Integer.parseInt(code.substring(0, 3)) : 0;
        return new Curl(r.exit(), status, Files.readString(headers), Files.readString(body) + r.err());
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(List<String> cmd, Map<String, String> env) throws Exception {
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish in 60 s");
        }
        String stderr = Files.readString(err);
        if (cmd.get(0).equals("kinit") && p.exitValue() != 0) {
            throw new AssertionError("kinit failed: " + stderr);
        }
        return new Run(p.exitValue(), out, stderr);
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
