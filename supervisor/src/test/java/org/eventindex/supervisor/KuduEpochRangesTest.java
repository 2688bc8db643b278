package org.eventindex.supervisor;

import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link KuduEpochRanges} on a real Kudu (the test kit's fixture): ranges are added once. */
class KuduEpochRangesTest {
    @TempDir
    Path dir;

    @Test
    void addsTheRangeOfANewEpochToBothEventTablesIdempotently() throws Exception {
        try (EmbeddedKudu kudu = EmbeddedKudu.start(dir, 1)) {
            KuduClient client = kudu.client();
            String masters = kudu.masterAddresses();
            KuduTablesConfig tablesConfig = new KuduTablesConfig("sup_", 2, 1);
            KuduTables tables = new KuduTables(client, tablesConfig);
            SupervisorConfig.Epochs settings = new SupervisorConfig.Epochs(100, masters, "sup_", 2, 1);
            tables.createOrVerify(1);
            try (KuduEpochRanges ranges = new KuduEpochRanges(settings);
                 KuduEpochRanges noTables = new KuduEpochRanges(
                         new SupervisorConfig.Epochs(100, masters, "absent_", 2, 1))) {
                IOException e = assertThrows(IOException.class, () -> noTables.ensure(1));
                assertTrue(e.getMessage().contains("epoch 1") && e.getMessage().contains("absent_EVENTS")
                        && e.getMessage().contains(masters), e.getMessage());

                ranges.ensure(2);
                ranges.ensure(2);
                ranges.ensure(3);
                assertEquals(List.of(1, 2, 3), tables.epochs(tablesConfig.eventsTable()));
                assertEquals(List.of(1, 2, 3), tables.epochs(tablesConfig.duplicatedEventsTable()));
            }
        }
    }
}
