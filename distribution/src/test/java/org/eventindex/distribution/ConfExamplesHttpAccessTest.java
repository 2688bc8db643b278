package org.eventindex.distribution;

import org.eventindex.config.ConfigFile;
import org.eventindex.config.ConfigReader;
import org.eventindex.ops.HttpAccess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The production examples of conf/ as docs/security.md "HTTP access" says: no server on every interface, HTTPS with a
 * Kerberos ticket or a certificate on the supervisor, the consumers and the lookup service, metrics on a plain bind.
 */
final class ConfExamplesHttpAccessTest {
    private static final Path CONF = Path.of("src/dist/conf");

    @Test
    void noExampleBindsEveryInterface() throws IOException {
        try (Stream<Path> files = Files.walk(CONF)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertFalse(Files.readAllLines(f).stream().filter(l -> !l.strip().startsWith("#"))
                        .anyMatch(l -> l.contains("0.0.0.0")), f + " binds 0.0.0.0");
            }
        }
    }

    @Test
    void theDaemonsAndTheLookupServiceRequireTlsAndATicketOrACertificate() throws IOException {
        for (String daemon : new String[]{"supervisor", "consumer"}) {
            ConfigFile f = ConfigReader.load(CONF.resolve(daemon + ".properties"), daemon);
            String p = daemon + ".http.";
            assertEquals("true", f.getProperty(p + "tls"), daemon);
            assertEquals("kerberos,certificate", f.getProperty(p + "auth"), daemon);
            assertTrue(f.getProperty(p + "metrics.port", "").matches("\\d+"), daemon + ": a plain metrics bind");
            assertTrue(f.getProperty(p + "host").endsWith(".example.org"), daemon + ": bound to the host's name");
        }
        Path lookup = CONF.resolve("lookup-http.properties");
        ConfigFile f = ConfigReader.load(lookup, "lookup");
        // every key is one lookup serve knows (an unknown one is refused here, with its line)
        new ConfigReader("lookup.", HttpAccess.keys("lookup.http."), f, Map.of());
        assertEquals("true", f.getProperty("lookup.http.tls"));
        assertEquals("kerberos,certificate", f.getProperty("lookup.http.auth"));
        String env = Files.readString(CONF.resolve("lookup.env"));
        assertTrue(env.contains("LOOKUP_HTTP_ACCESS=\"--http-config /etc/eventindex/lookup-http.properties\""), env);
        assertTrue(Files.readString(Path.of("src/dist/systemd/eventindex-lookup.service"))
                .contains("$LOOKUP_HTTP_ACCESS"), "the unit passes the lookup's HTTP access file");
    }
}
