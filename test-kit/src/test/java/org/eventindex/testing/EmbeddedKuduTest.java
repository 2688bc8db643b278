package org.eventindex.testing;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.CreateTableOptions;
import org.apache.kudu.client.KuduClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedKuduTest {
    @Test
    void startsRealClusterAndCreatesTable(@TempDir Path dir) throws Exception {
        String before = System.getProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
        System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY, "--log_segment_size_mb=2");
        EmbeddedKudu started;
        try {
            started = EmbeddedKudu.start(dir, 1);
        } finally {
            restore(before);
        }
        try (EmbeddedKudu kudu = started) {
            // the fixture's metrics interval comes after MiniKuduCluster's own (the last of a flag wins), on both
            // daemons; the property's flag after everything on the tablet server
            String tserver = commandLine(dir, " tserver ");
            assertEquals("60000", lastValue(tserver, "--metrics_log_interval_ms"), tserver);
            assertEquals("60000", lastValue(commandLine(dir, " master "), "--metrics_log_interval_ms"));
            assertTrue(tserver.endsWith(" --log_segment_size_mb=2"), tserver);
            assertTrue(tserver.contains(" --log_segment_size_mb=1 "), tserver);
            KuduClient client = kudu.client();
            Schema schema = new Schema(List.of(
                    new ColumnSchema.ColumnSchemaBuilder("k", Type.INT32).key(true).build()));
            client.createTable("fixture_smoke", schema,
                    new CreateTableOptions().addHashPartitions(List.of("k"), 4).setNumReplicas(1));
            assertTrue(client.tableExists("fixture_smoke"));
            // a started tablet server has used CPU, and the counter only grows
            long cpu = kudu.tabletServerCpuMillis();
            assertTrue(cpu > 0, "tablet server CPU " + cpu + " ms");
            assertTrue(kudu.tabletServerCpuMillis() >= cpu);
        }
    }

    @Test
    void extraTabletServerFlagsComeFromTheSystemProperty() {
        String before = System.getProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
        try {
            System.clearProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
            assertEquals(List.of(), EmbeddedKudu.extraTabletServerFlags());
            System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY,
                    " --metrics_log_interval_ms=0 , --log_segment_size_mb=8");
            assertEquals(List.of("--metrics_log_interval_ms=0", "--log_segment_size_mb=8"),
                    EmbeddedKudu.extraTabletServerFlags());
            System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY, "--a=1,log_segment_size_mb=8");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    EmbeddedKudu::extraTabletServerFlags);
            assertTrue(e.getMessage().contains("'log_segment_size_mb=8' is not one flag"), e.getMessage());
            for (String bad : List.of("--", "--a=1 --b=2", "-a=1", "--a b")) {
                assertTrue(EmbeddedKudu.checkFlag(bad).contains("'" + bad + "' is not one flag"), bad);
            }
            assertNull(EmbeddedKudu.checkFlag("--log_segment_size_mb=8"));
            assertNull(EmbeddedKudu.checkFlag("--never_fsync"));
        } finally {
            restore(before);
        }
    }

    /** The command line of this cluster's daemon whose command line holds {@code role}. */
    private static String commandLine(Path dir, String role) {
        return ProcessHandle.allProcesses()
                .map(h -> h.info().commandLine().orElse(""))
                .filter(c -> c.contains(role) && c.contains(dir.toAbsolutePath().toString()))
                .findFirst().orElseThrow(() -> new AssertionError("no" + role + "process under " + dir));
    }

    /** The value of the last {@code flag=} in {@code commandLine}. */
    private static String lastValue(String commandLine, String flag) {
        int at = commandLine.lastIndexOf(" " + flag + "=");
        assertTrue(at >= 0, flag + " not in " + commandLine);
        String rest = commandLine.substring(at + flag.length() + 2);
        int end = rest.indexOf(' ');
        return end < 0 ? rest : rest.substring(0, end);
    }

    private static void restore(String value) {
        if (value == null) {
            System.clearProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
        } else {
            System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY, value);
        }
    }
}
