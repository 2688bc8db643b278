package org.eventindex.supervisor;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.test.cluster.MiniKuduCluster;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.KuduBinaries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link KuduEpochRanges} on a real Kudu (the binaries unpacked by the test-kit build): ranges are added once. */
class KuduEpochRangesTest {
    @TempDir
    Path dir;

    @Test
    void addsTheRangeOfANewEpochToBothEventTablesIdempotently() throws Exception {
        System.setProperty(KuduBinaries.PROPERTY, KuduBinaries.binDir().toString());
        try (MiniKuduCluster cluster = new MiniKuduCluster.MiniKuduClusterBuilder().numMasterServers(1)
                .numTabletServers(1).clusterRoot(dir.resolve("kudu").toString())
                .addMasterServerFlag("--max_create_tablets_per_ts=0")
                // The mini cluster's default 768-bit keys are refused by the JDK's TLS constraints once another
                // test in this JVM has initialised them; keys of the production size always pass.
                .addMasterServerFlag("--ipki_server_key_size=2048").addMasterServerFlag("--ipki_ca_key_size=2048")
                .addTabletServerFlag("--ipki_server_key_size=2048").build();
             KuduClient client = new KuduClient.KuduClientBuilder(cluster.getMasterAddressesAsString())
                     .defaultAdminOperationTimeoutMs(120_000).defaultOperationTimeoutMs(120_000).build()) {
            KuduTablesConfig tablesConfig = new KuduTablesConfig("sup_", 2, 1);
            KuduTables tables = new KuduTables(client, tablesConfig);
            SupervisorConfig.Epochs settings = new SupervisorConfig.Epochs(100, cluster.getMasterAddressesAsString(),
                    "sup_", 2, 1);
            tables.createOrVerify(1);
            try (KuduEpochRanges ranges = new KuduEpochRanges(settings);
                 KuduEpochRanges noTables = new KuduEpochRanges(new SupervisorConfig.Epochs(100,
                         cluster.getMasterAddressesAsString(), "absent_", 2, 1))) {
                IOException e = assertThrows(IOException.class, () -> noTables.ensure(1));
                assertTrue(e.getMessage().contains("epoch 1") && e.getMessage().contains("absent_EVENTS")
                        && e.getMessage().contains(cluster.getMasterAddressesAsString()), e.getMessage());

                ranges.ensure(2);
                ranges.ensure(2);
                ranges.ensure(3);
                assertEquals(List.of(1, 2, 3), tables.epochs(tablesConfig.eventsTable()));
                assertEquals(List.of(1, 2, 3), tables.epochs(tablesConfig.duplicatedEventsTable()));
            }
        }
    }
}
