package org.eventindex.operator;

import org.eventindex.supervisor.Supervisor;
import org.eventindex.config.SecretFile;
import org.eventindex.config.TlsSettings;
import org.eventindex.config.TrustStore;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator commands against a real ActiveMQ whose only connector is STOMP over TLS (as the production pair's
 * 61614), with a supervisor connected to it over TLS: answering commands and {@code dead-letters list} work with
 * {@code --tls} or {@code stomp+ssl://} entries, through a list one of whose brokers is down; a wrong trust
 * store is named with its option and file.
 */
class OperatorTlsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String DATASET = "data18_13TeV.00350020.physics_Main.merge.AOD.f934_m1831_tid13500020_00";
    private static final String DEAD_QUEUE = "/queue/eventindex.tls.dead";

    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static EmbeddedBroker broker;
    private static Supervisor supervisor;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void start() throws IOException {
        certs = TestCertificates.create(dir.resolve("certs"));
        broker = EmbeddedBroker.startTls(dir.resolve("broker"), certs);
        Properties tls = new Properties();
        tls.setProperty("supervisor.stomp.tls", "true");
        tls.setProperty("supervisor.stomp.truststore", certs.trustStore().toString());
        supervisor = RunningSupervisor.start(broker.stompEndpoints(), dir.resolve("journal"), tls,
                Map.of(TlsSettings.ENV_STOMP_TRUSTSTORE_PASSWORD, certs.trustStorePassword()));
    }

    @AfterAll
    static void stop() {
        if (supervisor != null) {
            supervisor.stop();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @AfterEach
    void reset() {
        out.reset();
        err.reset();
    }

    @Test
    void answeringCommandsWorkOverTlsThroughTheFailoverList() throws IOException {
        Path manifest = Files.writeString(dir.resolve("manifest.json"), "{\"type\":\"manifest\",\"dataset\":\""
                + DATASET + "\",\"files\":[{\"guid\":\"G1\",\"nevents\":10}]}");
        String brokers = "127.0.0.1:" + Ports.free() + "," + broker.stompEndpoints();
        assertEquals(0, cli("register-manifest", "--brokers", brokers, "--tls", "--trust-store",
                certs.trustStore().toString(), "--trust-store-password-file", certs.trustStorePasswordFile().toString(),
                "--file", manifest.toString()), err());
        assertTrue(out().contains("OK: manifest of dataset " + DATASET + " (1 files) registered"), out());

        out.reset();
        // the producer's way of writing a TLS list; the password from the producer's environment variable
        String schemed = "stomp+ssl://127.0.0.1:" + Ports.free() + ",stomp+ssl://" + broker.stompEndpoints();
        assertEquals(OperatorMain.REFUSED, cli(Map.of(BrokerTlsOptions.ENV_TRUST_STORE_PASSWORD,
                certs.trustStorePassword()), "resignal", "--brokers", schemed, "--trust-store",
                certs.trustStore().toString(), "--dataset", DATASET));
        assertTrue(err().contains("resignal refused: WRONG_STATE") && err().contains("is COLLECTING"), err());
    }

    @Test
    void deadLettersAreListedOverTls() throws IOException {
        StompSettings settings = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null)
                .withTls(new TrustStore(certs.trustStore(), certs.trustStorePassword())
                        .sslContext("test").getSocketFactory());
        try (StompConnection c = StompConnection.connect(settings)) {
            c.send(DEAD_QUEUE, "{\"n\":1}".getBytes(StandardCharsets.UTF_8), Map.of());
            c.subscribe(DEAD_QUEUE, 1, m -> {
                try {
                    c.nack(m);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            Await.until("the message dead-lettered", WAIT, () -> broker.queueSize(EmbeddedBroker.DLQ) == 1);
        }
        assertEquals(0, cli("dead-letters", "list", "--brokers", "stomp+ssl://" + broker.stompEndpoints(),
                "--trust-store", certs.trustStore().toString(), "--trust-store-password-file",
                certs.trustStorePasswordFile().toString()), err());
        List<String> lines = out().lines().toList();
        assertEquals(2, lines.size(), out());
        assertTrue(lines.get(0).contains("from " + DEAD_QUEUE) && lines.get(0).contains("body: {\"n\":1}"), out());
        assertEquals("1 dead-lettered messages in /queue/ActiveMQ.DLQ", lines.get(1));
        assertEquals(1, broker.queueSize(EmbeddedBroker.DLQ), "listing takes nothing off");
    }

    @Test
    void aTrustStoreThatDoesNotTrustTheBrokerIsNamedWithItsOption() {
        TestCertificates other = TestCertificates.create(dir.resolve("other-certs"));
        assertEquals(1, cli("resignal", "--brokers", broker.stompEndpoints(), "--tls", "--trust-store",
                other.trustStore().toString(), "--trust-store-password-file", other.trustStorePasswordFile().toString(),
                "--dataset", DATASET, "--timeout", "5"));
        assertTrue(err().contains("TLS handshake failed"), err());
        assertTrue(err().contains("the certificates were checked against --trust-store " + other.trustStore()), err());

        err.reset();
        assertEquals(1, cli("dead-letters", "list", "--brokers", broker.stompEndpoints(), "--tls"));
        assertTrue(err().contains("TLS handshake failed") && err().contains("the JVM's default trust store"), err());

        err.reset();
        assertEquals(1, cli("dead-letters", "list", "--brokers", broker.stompEndpoints()));
        assertTrue(err().contains("no STOMP broker accepted a connection") && err().contains("give --tls"), err());
    }

    @Test
    void anUnusableTrustStoreIsNamedWithItsOptionAndFile() throws IOException {
        Path missing = dir.resolve("no-such-trust.p12");
        assertEquals(1, cli("resignal", "--brokers", broker.stompEndpoints(), "--tls", "--trust-store",
                missing.toString(), "--dataset", DATASET));
        assertTrue(err().contains("--trust-store: cannot read trust store " + missing + ": "), err());

        err.reset();
        assertEquals(1, cli("resignal", "--brokers", broker.stompEndpoints(), "--tls", "--trust-store",
                certs.trustStore().toString(), "--dataset", DATASET));
        assertTrue(err().contains("--trust-store: trust store " + certs.trustStore() + " holds no certificate readable"
                + " without a password"), err());

        err.reset();
        Path wrongPassword = SecretFile.write(dir.resolve("wrong.pw"), "not-the-password");
        assertEquals(1, cli("dead-letters", "list", "--brokers", broker.stompEndpoints(), "--tls", "--trust-store",
                certs.trustStore().toString(), "--trust-store-password-file", wrongPassword.toString()));
        assertTrue(err().contains("--trust-store: cannot use trust store " + certs.trustStore()), err());
        assertFalse(err().contains("not-the-password"), err());

        err.reset();
        Path open = SecretFile.write(dir.resolve("open.pw"), certs.trustStorePassword());
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(1, cli("resignal", "--brokers", broker.stompEndpoints(), "--tls", "--trust-store",
                certs.trustStore().toString(), "--trust-store-password-file", open.toString(), "--dataset", DATASET));
        assertTrue(err().contains("--trust-store-password-file: secret file " + open + " has mode rw-r--r--"), err());
    }

    @Test
    void tlsOptionsThatContradictEachOtherAreUsageErrors() throws IOException {
        assertEquals(2, cli("resignal", "--brokers", broker.stompEndpoints(), "--trust-store",
                certs.trustStore().toString(), "--dataset", DATASET));
        assertTrue(err().contains("resignal: --trust-store is only used over TLS: give --tls"), err());

        err.reset();
        assertEquals(2, cli("dead-letters", "list", "--brokers", "stomp+ssl://" + broker.stompEndpoints()
                + ",127.0.0.1:" + Ports.free()));
        assertTrue(err().contains("eventindex supervisor dead-letters list: --brokers mixes stomp+ssl:// and plain"
                + " entries"), err());

        err.reset();
        assertEquals(2, cli("resignal", "--brokers", "stomp://" + broker.stompEndpoints(), "--tls",
                "--dataset", DATASET));
        assertTrue(err().contains("is plain STOMP but --tls is given"), err());
    }

    /** Every command that talks to the brokers has the same TLS options (from the one mixin). */
    @Test
    void everyClientCommandTakesTheTlsOptions() {
        for (List<String> command : List.of(List.of("register-manifest"), List.of("resignal"), List.of("invalidate"),
                List.of("delete-dataset"), List.of("dead-letters", "list"), List.of("dead-letters", "redrive"))) {
            out.reset();
            List<String> help = new ArrayList<>(command);
            help.add("--help");
            assertEquals(0, cli(help.toArray(String[]::new)), command.toString());
            for (String option : List.of("--brokers=[stomp+ssl://]H:P", "--tls", "--trust-store=FILE",
                    "--trust-store-password-file=FILE", "--user=U", "--password-file=F")) {
                assertTrue(out().contains(option), command + " lacks " + option + ":\n" + out());
            }
        }
    }

    private int cli(String... args) {
        return cli(Map.of(), args);
    }

    private int cli(Map<String, String> env, String... args) {
        return OperatorMain.run(args, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                env);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
