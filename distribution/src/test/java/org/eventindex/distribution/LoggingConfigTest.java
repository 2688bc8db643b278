package org.eventindex.distribution;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kudu's client logs the whole Kerberos subject, ticket bytes included, at INFO from its SecurityContext on each
 * external credential refresh: the distribution's conf/logback.xml and the source tree's slf4j-simple configuration
 * (deploy) keep that logger at WARN, also when an operator raises org.apache.kudu.
 */
final class LoggingConfigTest {
    private static final Path CONF = Path.of("src/dist/conf");
    private static final String KUDU_SECURITY = "org.apache.kudu.client.SecurityContext";

    @TempDir
    Path temp;

    @Test
    void logbackKeepsKudusSecurityContextQuietAsShipped() throws Exception {
        String xml = Files.readString(CONF.resolve("logback.xml"));
        assertEquals(Level.WARN, effectiveLevel(xml, KUDU_SECURITY));
        assertEquals(Level.WARN, effectiveLevel(xml, "org.apache.kudu.client.AsyncKuduClient"));
    }

    @Test
    void logbackKeepsKudusSecurityContextQuietWhenKuduIsRaisedToInfo() throws Exception {
        String shipped = Files.readString(CONF.resolve("logback.xml"));
        String raised = shipped.replace("<logger name=\"org.apache.kudu\" level=\"WARN\"/>",
                "<logger name=\"org.apache.kudu\" level=\"INFO\"/>");
        assertFalse(raised.equals(shipped), "no org.apache.kudu logger at WARN in conf/logback.xml");
        assertEquals(Level.INFO, effectiveLevel(raised, "org.apache.kudu.client.AsyncKuduClient"));
        assertEquals(Level.WARN, effectiveLevel(raised, KUDU_SECURITY));
    }

    @Test
    void sourceTreeSimpleLoggerKeepsKudusSecurityContextAtWarn() throws IOException {
        Properties simple = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("../deploy/src/main/resources/simplelogger.properties"))) {
            simple.load(in);
        }
        assertEquals("warn", simple.getProperty("org.slf4j.simpleLogger.log." + KUDU_SECURITY));
    }

    /** The logger's effective level once Logback has read this configuration, as bin/eventindex points it at. */
    private Level effectiveLevel(String logbackXml, String logger) throws Exception {
        Path file = Files.writeString(temp.resolve("logback-" + System.nanoTime() + ".xml"), logbackXml);
        LoggerContext context = new LoggerContext();
        context.putProperty("eventindex.conf.dir", CONF.toAbsolutePath().toString());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        try {
            configurator.doConfigure(file.toFile());
            assertTrue(context.getStatusManager().getCopyOfStatusList().stream().allMatch(s -> s.getLevel() < 2),
                    "Logback reported errors reading " + file + ": " + context.getStatusManager().getCopyOfStatusList());
            return context.getLogger(logger).getEffectiveLevel();
        } finally {
            context.stop();
        }
    }
}
