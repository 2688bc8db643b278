package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.KerberosLogin;
import org.eventindex.testing.HttpGets;
import org.eventindex.cluster.testing.KerberizedKudu;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lookup serve} with Kerberos (a real MIT KDC, a Kerberized Kudu) registers its login's metrics like the other
 * daemons: once Kudu is open, {@code /metrics} has the ticket's end (a time within the ticket lifetime) and the login
 * failures (0).
 */
class KerberizedLookupServeIT {
    private static final Duration LIFETIME = Duration.ofMinutes(10);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern TICKET_END = Pattern.compile("\n" + KerberosLogin.TICKET_END + " ([0-9.E]+)\n");

    @TempDir
    Path tmp;


    @Test
    void theLoginsMetricsAreOnMetricsOnceKuduIsOpen() throws Exception {
        // this JVM logs in too, to create the tables (its krb5.conf: no other test of the module uses Kerberos)
        try (MitKdc kdc = MitKdc.startForThisJvm(tmp.resolve("kdc"), LIFETIME);
             KerberizedKudu kudu = KerberizedKudu.start(kdc, Files.createDirectories(tmp.resolve("kudu")), 10)) {
            String principal = MitKdc.inRealm("eventindex/localhost");
            Path keytab = kdc.keytab("eventindex/localhost", tmp.resolve("keytabs").resolve("eventindex.keytab"));
            kudu.awaitTabletServer(principal, keytab, TIMEOUT);
            try (KuduClient admin = kudu.clientAs(principal, keytab)) {
                new KuduTables(admin, new KuduTablesConfig("", 2, 1)).createOrVerify(1);
            }
            int port = Ports.free();
            Process serve = ChildJvm.main(LookupMain.class).quickStart()
                    .options("-Djava.security.krb5.conf=" + kdc.krb5Conf())
                    .args("serve", "--masters", kudu.masterAddresses(), "--port", Integer.toString(port), "--bind",
                            "127.0.0.1", "--kerberos-principal", principal, "--kerberos-keytab", keytab.toString())
                    .start(tmp.resolve("serve.log"));
            try {
                String metricsUrl = "http://127.0.0.1:" + port + "/metrics";
                try {
                    Await.until("the Kerberos login's metrics on /metrics", TIMEOUT,
                            () -> TICKET_END.matcher(HttpGets.body(metricsUrl)).find());
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "; /metrics:\n" + HttpGets.body(metricsUrl)
                            + "\nlookup serve's output:\n" + Files.readString(tmp.resolve("serve.log")), e);
                }
                String metrics = HttpGets.body(metricsUrl);
                Matcher m = TICKET_END.matcher(metrics);
                assertTrue(m.find(), metrics);
                double left = Double.parseDouble(m.group(1)) - System.currentTimeMillis() / 1000.0;
                assertTrue(left > 0 && left <= LIFETIME.toSeconds() + 60, "ticket time left " + left + " s");
                assertTrue(metrics.contains("\n" + KerberosLogin.LOGIN_FAILURES + " 0.0\n"), metrics);
            } finally {
                serve.destroy();
                if (!serve.waitFor(30, TimeUnit.SECONDS)) {
                    serve.destroyForcibly().waitFor();
                }
            }
            assertEquals(0, serve.exitValue(), "lookup serve stops cleanly on SIGTERM: "
                    + Files.readString(tmp.resolve("serve.log")));
        }
    }
}
