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
            // the property's flag reached the tablet server's command line, after the fixture's own (the last wins)
            String tserver = ProcessHandle.allProcesses()
                    .map(h -> h.info().commandLine().orElse(""))
                    .filter(c -> c.contains(" tserver ") && c.contains(dir.toAbsolutePath().toString()))
                    .findFirst().orElseThrow();
            assertTrue(tserver.endsWith(" --log_segment_size_mb=2"), tserver);
            assertTrue(tserver.contains(" --log_segment_size_mb=1 "), tserver);
            assertTrue(tserver.contains(" --metrics_log_interval_ms=60000 "), tserver);
            assertFalse(kudu.masterAddresses().isBlank());
            assertEquals(1, kudu.tabletServers().size());
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
            assertTrue(e.getMessage().contains("'log_segment_size_mb=8' is not a flag"), e.getMessage());
        } finally {
            restore(before);
        }
    }

    private static void restore(String value) {
        if (value == null) {
            System.clearProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
        } else {
            System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY, value);
        }
    }
}
