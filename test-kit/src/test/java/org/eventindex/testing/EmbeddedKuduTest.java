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
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedKuduTest {
    @Test
    void startsRealClusterAndCreatesTable(@TempDir Path dir) throws Exception {
        try (EmbeddedKudu kudu = EmbeddedKudu.start(dir, 1)) {
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
}
