package org.eventindex.ops;

import org.eventindex.config.ConfigKey;
import org.eventindex.config.ConfigKeysFile;
import org.eventindex.config.ConfigReader;
import org.eventindex.config.SecretFile;
import org.eventindex.testing.ConfigKeysFileCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.security.auth.x500.X500Principal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HttpAccessTest {
    private static final String P = "consumer.http.";

    @TempDir
    Path dir;

    private static HttpAccess read(String... lines) throws IOException {
        Properties p = new Properties();
        for (String l : lines) {
            int eq = l.indexOf('=');
            p.setProperty(P + l.substring(0, eq), l.substring(eq + 1));
        }
        return HttpAccess.read(new ConfigReader("consumer.", HttpAccess.keys(P), p, Map.of()), P);
    }

    private static String refusal(String... lines) {
        return assertThrows(IllegalArgumentException.class, () -> read(lines)).getMessage();
    }

    @Test
    void withoutTheKeysPlainHttpWithoutAuthenticationAndNoMetricsBind() throws IOException {
        HttpAccess a = read();
        assertFalse(a.tls());
        assertFalse(a.authenticated());
        assertEquals("http", a.scheme());
        assertEquals(Optional.empty(), a.metricsPort());
        assertEquals(HttpAccess.open().mechanisms(), a.mechanisms());
    }

    @Test
    void readsEveryKeyOfASiteThatTakesTicketsAndCertificates() throws IOException {
        Path pw = SecretFile.write(dir.resolve("ks.pw"), "s3cret");
        Path keytab = SecretFile.write(dir.resolve("http.keytab"), "not read here");
        HttpAccess a = read("tls=true", "keystore=/etc/eventindex/tls/host.p12", "keystore.password.file=" + pw,
                "auth=kerberos, certificate", "allowed.subjects=CN=alice,OU=Users,O=Example; CN=bob, O=Example",
                "allowed.issuers=CN=Grid CA,O=Example", "kerberos.principal=HTTP/host.example.org@EXAMPLE.ORG",
                "kerberos.keytab=" + keytab, "metrics.host=10.0.0.5", "metrics.port=9183");
        assertEquals("https", a.scheme());
        assertEquals("s3cret", a.keyStorePassword());
        assertEquals(Set.of(HttpAccess.Mechanism.KERBEROS, HttpAccess.Mechanism.CERTIFICATE), a.mechanisms());
        assertEquals(List.of(new X500Principal("CN=alice,OU=Users,O=Example"), new X500Principal("CN=bob,O=Example")),
                a.allowedSubjects());
        assertEquals(List.of(new X500Principal("CN=Grid CA,O=Example")), a.allowedIssuers());
        assertEquals(Optional.of(9183), a.metricsPort());
        assertEquals("10.0.0.5", a.metricsHost());
        assertFalse(a.toString().contains("host.p12") || a.toString().contains("keytab")
                || a.toString().contains("s3cret"), "no path to a secret, no secret: " + a);
    }

    @Test
    void refusesWhatCannotWorkNamingTheKey() throws IOException {
        assertEquals(P + "tls=true needs " + P + "keystore (the server's certificate and key, PKCS12)",
                refusal("tls=true"));
        assertTrue(refusal("auth=certificate").startsWith(P + "auth includes certificate, which needs TLS"),
                refusal("auth=certificate"));
        assertTrue(refusal("auth=kerberos").startsWith(P + "auth includes kerberos: set " + P
                + "kerberos.principal"), refusal("auth=kerberos"));
        assertEquals(P + "auth 'kerberos,basic': 'basic' is not kerberos or certificate (or the whole value none)",
                refusal("auth=kerberos,basic"));
        assertTrue(refusal("allowed.subjects=alice").contains("is not a distinguished name"),
                refusal("allowed.subjects=alice"));
        assertTrue(refusal("tls=yes").contains("must be true or false"));
        assertTrue(refusal("metrics.port=70000").contains("metrics.port must be within 0..65535"));
        Path pw = SecretFile.write(dir.resolve("ks.pw"), "pw");
        assertTrue(refusal("tls=true", "keystore=" + dir.resolve("ks.p12"), "keystore.password.file=" + pw,
                "allowed.subjects=CN=alice").contains("apply to client certificates"));
        Path open = Files.writeString(dir.resolve("open.pw"), "pw");
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(refusal("tls=true", "keystore=" + dir.resolve("ks.p12"), "keystore.password.file=" + open)
                .contains("chmod 600"), "a password file others can read is refused");
    }

    @Test
    void allowedPrincipalsNameUsersOrWholeRealms() throws IOException {
        Path keytab = SecretFile.write(dir.resolve("http.keytab"), "not read here");
        HttpAccess a = read("auth=kerberos", "kerberos.principal=HTTP/h@EXAMPLE.ORG", "kerberos.keytab=" + keytab,
                "allowed.principals=alice@EXAMPLE.ORG, @OPS.EXAMPLE.ORG");
        assertTrue(a.allows("alice@EXAMPLE.ORG"));
        assertTrue(a.allows("bob@OPS.EXAMPLE.ORG"));
        assertFalse(a.allows("bob@EXAMPLE.ORG"));
        assertTrue(read("auth=kerberos", "kerberos.principal=HTTP/h@EXAMPLE.ORG", "kerberos.keytab=" + keytab)
                .allows("anyone@ANY.REALM"), "no list: every principal the KDC vouches for");
        assertTrue(refusal("auth=kerberos", "kerberos.principal=HTTP/h@EXAMPLE.ORG", "kerberos.keytab=" + keytab,
                "allowed.principals=alice").contains("'alice' is not user@REALM or @REALM"));
    }

    @Test
    void aMissingKeyStoreIsNamedWhenTheServerStarts() throws IOException {
        Path pw = SecretFile.write(dir.resolve("ks.pw"), "pw");
        HttpAccess a = read("tls=true", "keystore=" + dir.resolve("missing.p12"), "keystore.password.file=" + pw);
        String m = assertThrows(IllegalArgumentException.class, () -> a.sslContext(f -> { })).getMessage();
        assertTrue(m.startsWith(P + "keystore: cannot read key store " + dir.resolve("missing.p12")), m);
    }

    @Test
    void theLookupDocsListEveryKeyOfItsHttpConfigWithItsDefault() throws IOException {
        Path doc = Path.of("..", "docs", "lookup.md");
        String text = Files.readString(doc);
        for (ConfigKey k : HttpAccess.keys("lookup.http.")) {
            String row = "| `" + k.name() + "` | " + (k.defaultValue().isEmpty() ? "(empty)"
                    : "`" + k.defaultValue() + "`") + " |";
            assertTrue(text.contains(row), doc + " lacks the row starting " + row);
        }
    }

    @Test
    void theKeysPrintAsAValidPropertiesFile() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<ConfigKey> keys = HttpAccess.keys(P);
        ConfigKeysFile.print("HTTP access", keys, new PrintStream(out, true, StandardCharsets.UTF_8));
        ConfigKeysFileCheck.assertValid(out.toString(StandardCharsets.UTF_8), keys.stream()
                .map(k -> new ConfigKeysFileCheck.Key(k.name(), k.defaultValue(), k.envVar(), k.doc())).toList());
    }
}
