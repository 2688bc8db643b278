package org.eventindex.preflight;

import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.testing.KerberizedKudu;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex check kudu-loader} with a principal and its keytab against a real MIT KDC and a Kerberized Kudu
 * (this JVM's krb5.conf is the KDC's: a class of its own, in a JVM of its own): green as the principal, then the
 * principal's key changed at the KDC (the keytab is stale, as after a key rotation the host did not get) and then the
 * KDC stopped; the login line must name each.
 */
class KerberizedPreflightIT {
    private static final String PRINCIPAL = MitKdc.inRealm("eventindex/localhost");

    @TempDir
    Path tmp;

    private static String check(Path keytab, String masters) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = CheckMain.run(new String[]{"kudu-loader", "--masters", masters, "--kerberos-principal", PRINCIPAL,
                "--kerberos-keytab", keytab.toString(), "--timeout", "20"},
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err, Map.of());
        return status + "\n" + out.toString(StandardCharsets.UTF_8);
    }

    private static String loginLine(String run) {
        return run.lines().filter(l -> l.contains(" cluster.login ")).findFirst()
                .orElseThrow(() -> new AssertionError("no cluster.login line in\n" + run));
    }

    @Test
    void greenAsThePrincipalThenAStaleKeytabThenNoKdc() throws Exception {
        try (MitKdc kdc = MitKdc.startForThisJvm(tmp.resolve("kdc"), Duration.ofMinutes(10));
             KerberizedKudu kudu = KerberizedKudu.start(kdc, Files.createDirectories(tmp.resolve("kudu")), 10)) {
            Path keytab = kdc.keytab("eventindex/localhost", tmp.resolve("keytabs").resolve("eventindex.keytab"));
            kudu.awaitTabletServer(PRINCIPAL, keytab, Duration.ofSeconds(60));
            try (KuduClient admin = kudu.clientAs(PRINCIPAL, keytab)) {
                new KuduTables(admin, new KuduTablesConfig("", 2, 1)).createOrVerify(1);
            }

            String green = check(keytab, kudu.masterAddresses());
            assertTrue(green.startsWith("0\n"), green);
            assertTrue(loginLine(green).startsWith("OK   cluster.login    Kerberos principal " + PRINCIPAL), green);
            for (String name : List.of("kudu.masters", "kudu.tables", "kudu.read", "kudu.write")) {
                assertTrue(green.lines().anyMatch(l -> l.startsWith("OK   " + name + " ")), name + " in\n" + green);
            }
            assertTrue(green.contains("read by principal " + PRINCIPAL), green);

            kdc.kadmin("cpw -randkey " + PRINCIPAL);
            String stale = check(keytab, kudu.masterAddresses());
            assertTrue(stale.startsWith(CheckMain.FAILED + "\n"), stale);
            String line = loginLine(stale);
            assertTrue(line.startsWith("FAIL cluster.login    Kerberos principal " + PRINCIPAL + " (keytab " + keytab
                    + "): Kerberos login of principal " + PRINCIPAL), line);
            assertTrue(line.contains("; fix: check --kerberos-principal and --kerberos-keytab"), line);

            kdc.stop();
            String noKdc = check(keytab, kudu.masterAddresses());
            assertTrue(noKdc.startsWith(CheckMain.FAILED + "\n"), noKdc);
            assertTrue(loginLine(noKdc).contains("no KDC of the realm answered"), noKdc);
        }
    }
}
