package org.eventindex.distribution;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Third-party loggers that conf/logback.xml (distribution) and deploy's slf4j-simple configuration (source tree) keep
 * quiet on purpose. Kudu's SecurityContext logs the whole Kerberos subject, ticket bytes included, at INFO on each
 * external credential refresh: kept at WARN, also when an operator raises org.apache.kudu. Kudu's ConnectToCluster
 * warns on every retry while the masters do not answer: the project's own line says it once.
 */
final class LoggingConfigTest {
    private static final Path CONF = Path.of("src/dist/conf");
    private static final String KUDU_SECURITY = "org.apache.kudu.client.SecurityContext";
    private static final String KUDU_CONNECT = "org.apache.kudu.client.ConnectToCluster";

    @TempDir
    Path temp;

    @Test
    void logbackKeepsKudusSecurityContextQuietAsShipped() throws Exception {
        String xml = Files.readString(CONF.resolve("logback.xml"));
        assertEquals(Level.WARN, effectiveLevel(xml, KUDU_SECURITY));
        assertEquals(Level.WARN, effectiveLevel(xml, "org.apache.kudu.client.AsyncKuduClient"));
    }

    /** An unreachable Kudu is the project's one line, not one Kudu WARN per connection retry before it. */
    @Test
    void kudusRetryWarningsAreLeftToTheProjectsOwnUnreachableLine() throws Exception {
        assertEquals(Level.ERROR, effectiveLevel(Files.readString(CONF.resolve("logback.xml")), KUDU_CONNECT));
        assertEquals("error", simpleLogger().getProperty("org.slf4j.simpleLogger.log." + KUDU_CONNECT));
    }

    /**
     * ZooKeeper's client reconnecting every second while no server answers (432 lines a minute from the standby
     * supervisor, measured) and Curator's warning on each capped retry are left to the supervisor's own line.
     */
    @Test
    void zooKeepersPerAttemptLinesAreLeftToTheProjectsOwnLine() throws Exception {
        String shipped = Files.readString(CONF.resolve("logback.xml"));
        assertEquals(Level.ERROR, effectiveLevel(shipped, "org.apache.zookeeper.ClientCnxn"));
        assertEquals(Level.WARN, effectiveLevel(shipped, "org.apache.zookeeper.ZooKeeper"));
        assertEquals(Level.ERROR, effectiveLevel(shipped, "org.apache.curator.retry.ExponentialBackoffRetry"));
        assertEquals(Level.WARN, effectiveLevel(shipped, "org.apache.curator.framework.state.ConnectionStateManager"));
        assertEquals("error", simpleLogger().getProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn"));
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
        assertEquals("warn", simpleLogger().getProperty("org.slf4j.simpleLogger.log." + KUDU_SECURITY));
    }

    /** The source tree's bin/eventindex and bin/demo log through slf4j-simple with deploy's configuration. */
    private static Properties simpleLogger() throws IOException {
        Properties simple = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("../deploy/src/main/resources/simplelogger.properties"))) {
            simple.load(in);
        }
        return simple;
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
            List<Status> statuses = context.getStatusManager().getCopyOfStatusList();
            assertTrue(statuses.stream().allMatch(s -> s.getLevel() < Status.ERROR),
                    "Logback reported errors reading " + file + ": " + statuses);
            return context.getLogger(logger).getEffectiveLevel();
        } finally {
            context.stop();
        }
    }
}
