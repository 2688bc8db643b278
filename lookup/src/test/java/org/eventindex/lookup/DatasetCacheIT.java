package org.eventindex.lookup;

import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.Update;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.names.DatasetName;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The lookup's DATASETS cache against a real Kudu, with a fake clock: a dataset reloaded elsewhere, set back to
 * LOADING, deleted, or newly loaded is seen by lookups at most one TTL late, never later.
 */
class DatasetCacheIT {
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("dc_", 2, 1);
    private static final Duration TTL = Duration.ofSeconds(5);
    private static final int RUN = 327636;
    private static final String DS = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String DS_NEW = "data17_13TeV.00327636.physics_Late.merge.AOD.f838_m1824";
    private static final String FILE_1 = LookupFixture.guid(0x1);
    private static final String FILE_2 = LookupFixture.guid(0x2);
    private static final String FILE_3 = LookupFixture.guid(0x3);

    @TempDir
    static Path dir;
    private static EmbeddedKudu kudu;
    private static DatasetLoader loader;
    private final AtomicLong now = new AtomicLong();

    @BeforeAll
    static void start() throws Exception {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        KuduTables tables = new KuduTables(kudu.client(), CONFIG);
        tables.createOrVerify(1);
        loader = new DatasetLoader(kudu.client(), tables, LoaderSettings.defaults(), Clock.systemUTC());
    }

    @AfterAll
    static void stop() {
        if (kudu != null) {
            kudu.close();
        }
    }

    /** The own-file GUIDs of (RUN, event) found by {@code lookup}; empty when not found. */
    private static List<String> files(EventLookup lookup, long event) {
        LookupResult r = lookup.lookup(new EventKey(RUN, event), LookupFilter.all());
        assertEquals(null, r.error());
        return r.matches().stream().filter(LookupMatch::own).map(m -> m.guid() + " " + m.dataset()).toList();
    }

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void reloadedLoadingDeletedAndNewDatasetsAreSeenAtMostOneTtlLate() throws Exception {
        load(DS, 10, 1, FILE_1, "sig-1");
        try (EventLookup lookup = new EventLookup(kudu.client(), CONFIG, 2, false, TTL, now::get);
             EventLookup uncached = new EventLookup(kudu.client(), CONFIG, 2, false)) {
            assertEquals(List.of(FILE_1 + " " + DS), files(lookup, 5));

            // Reloaded from another file at another (dspid, epoch): the cached placement is empty now.
            load(DS, 11, 2, FILE_2, "sig-2");
            assertEquals(List.of(FILE_2 + " " + DS), files(uncached, 5));
            advance(TTL.minusNanos(1));
            assertEquals(List.of(), files(lookup, 5), "stale within the TTL: the old placement, emptied");
            advance(Duration.ofNanos(1));
            assertEquals(List.of(FILE_2 + " " + DS), files(lookup, 5), "at the TTL: DATASETS read again");

            // Set back to LOADING (a reload starting), rows still there.
            setLoading(DS);
            assertEquals(List.of(), files(uncached, 5));
            advance(TTL.minusMillis(1));
            assertEquals(List.of(FILE_2 + " " + DS), files(lookup, 5), "stale within the TTL");
            advance(Duration.ofMillis(1));
            assertEquals(List.of(), files(lookup, 5), "LOADING is invisible once the TTL is over");

            // Loaded again, then deleted.
            load(DS, 11, 2, FILE_2, "sig-3");
            advance(TTL);
            assertEquals(List.of(FILE_2 + " " + DS), files(lookup, 5));
            loader.delete(DatasetName.parse(DS));
            advance(TTL);
            assertEquals(List.of(), files(lookup, 5));

            // A new dataset of the run appears at the TTL at the latest.
            assertFalse(files(lookup, 6).contains(FILE_3 + " " + DS_NEW));
            load(DS_NEW, 12, 1, FILE_3, "sig-4");
            advance(TTL.minusNanos(1));
            assertEquals(List.of(), files(lookup, 6), "not yet: the run's datasets are cached");
            advance(Duration.ofNanos(1));
            assertEquals(List.of(FILE_3 + " " + DS_NEW), files(lookup, 6));
        }
    }

    /** Events 1..20 of RUN in one AOD file {@code guid}, loaded at (dspid, epoch). */
    private static void load(String dataset, int dspid, int epoch, String guid, String loadId) throws Exception {
        Path file = dir.resolve(loadId + ".parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (long e = 1; e <= 20; e++) {
                w.write(EIEvent_p1.newBuilder().setRunNumber(RUN).setEventNumber(e).setLumiBlock(1).setTimeStamp(5)
                        .setTimeStampNSOffset(6).setBcid(7).setIsSimulation(false).setIsCalibration(false)
                        .setIsTestBeam(false).addEitoken(EItoken_p1.newBuilder().setName("StreamAOD")
                                .setToken(LookupFixture.token(guid, e))).build(), guid);
            }
            w.finish(new ConsolidatedMetadata(dataset, loadId,
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", loadId, true, true), List.of("s3://x/y"),
                    List.of(), List.of(), w.events(), List.of((long) RUN), 0, 2, w.finishDigest()).toKeyValues());
        }
        loader.load(new LoadRequest(DatasetName.parse(dataset), dspid, epoch, loadId, DatasetSource.local(file)));
    }

    private static void setLoading(String dataset) throws Exception {
        DatasetName n = DatasetName.parse(dataset);
        KuduTable t = kudu.client().openTable(CONFIG.datasetsTable());
        Update u = t.newUpdate();
        PartialRow row = u.getRow();
        KuduSchemas.addDatasetKey(row, n);
        row.addString(KuduSchemas.STATE, "LOADING");
        KuduSession session = kudu.client().newSession();
        try {
            OperationResponse resp = session.apply(u);
            assertFalse(resp.hasRowError(), String.valueOf(resp.getRowError()));
        } finally {
            session.close();
        }
    }
}
