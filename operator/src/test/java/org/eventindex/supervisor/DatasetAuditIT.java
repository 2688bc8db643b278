package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import org.apache.kudu.client.Delete;
import org.apache.kudu.client.KuduSession;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.kudu.Verification;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisor's scheduled verify ({@link DatasetAudit} on {@link KuduEpochRanges#verifyTarget()}) on a real Kudu,
 * with two datasets loaded by the loader from their consolidated files: it takes them in turn, finds a row deleted in
 * Kudu (KUDU_DIFFERS, with the repair command) and a file replaced by one with the same counts (FILE_DIFFERS, through
 * the content checksum recorded at load), shows them in the metric and the report {@code /console/verify} serves, and
 * drops a dataset from the findings once it verifies OK again.
 *
 * <p>In the operator module, downstream of both the supervisor and the loader, so that the supervisor does not depend
 * on kudu-loader even in test scope; in the supervisor's package, whose package-private classes it drives.
 */
class DatasetAuditIT {
    private static final String FIRST = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String SECOND = "data17_13TeV.00327637.physics_Main.merge.AOD.f838_m1824";
    private static final KuduTablesConfig TABLES = new KuduTablesConfig("audit_", 2, 1);

    @TempDir
    Path dir;

    @Test
    void verifiesTheLoadedDatasetsInTurnAndReportsEachDifference() throws Exception {
        try (EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
             KuduEpochRanges ranges = new KuduEpochRanges(new SupervisorConfig.Epochs(100, kudu.masterAddresses(),
                     TABLES.prefix(), 2, 1))) {
            KuduTables tables = new KuduTables(kudu.client(), TABLES);
            tables.createOrVerify(1);
            Path first = write(FIRST, 40, 1);
            Path second = write(SECOND, 30, 1);
            load(kudu, tables, FIRST, 21, first);
            load(kudu, tables, SECOND, 22, second);
            PrometheusRegistry registry = new PrometheusRegistry();
            DatasetAudit audit = new DatasetAudit(ranges.verifyTarget(), Duration.ofMinutes(1), Clock.systemUTC(),
                    kudu.masterAddresses(), new SupervisorMetrics(registry).verifications);
            DatasetAudit.registerGauges(registry, audit);

            assertEquals(FIRST, verifyNext(audit, Verification.Verdict.OK).dataset());
            assertEquals(SECOND, verifyNext(audit, Verification.Verdict.OK).dataset());
            assertEquals(0.0, gauge(registry, "eventindex_supervisor_verify_differences"));
            assertTrue(gauge(registry, "eventindex_supervisor_verify_last_timestamp_seconds") > 0);

            // a row of SECOND deleted in Kudu; FIRST's file replaced by one with the same events, other values
            deleteEvent(kudu, SECOND, 5);
            write(FIRST, 40, 2);

            Verification replaced = verifyNext(audit, Verification.Verdict.FILE_DIFFERS);
            assertEquals(FIRST, replaced.dataset());
            assertTrue(String.join("\n", replaced.differences()).contains("the file is not the one loaded"),
                    replaced.differences().toString());
            Verification damaged = verifyNext(audit, Verification.Verdict.KUDU_DIFFERS);
            assertEquals(SECOND, damaged.dataset());
            assertEquals(2.0, gauge(registry, "eventindex_supervisor_verify_differences"));
            DatasetAudit.Report report = audit.report();
            assertEquals(List.of(FIRST, SECOND), report.differing().stream().map(DatasetAudit.Finding::dataset)
                    .toList());
            assertTrue(report.differing().get(1).repair().endsWith("--dataset '" + SECOND + "' --repair"),
                    report.differing().get(1).repair());

            // the operator's repair of SECOND (what eventindex verify --repair does), then its next turn: OK again
            DatasetsRow row = new DatasetQueries(kudu.client(), TABLES).dataset(SECOND).orElseThrow();
            DatasetLoader.repair(kudu.client(), tables, damaged, row, DatasetSource.local(second));
            verifyNext(audit, Verification.Verdict.FILE_DIFFERS);
            verifyNext(audit, Verification.Verdict.OK);
            assertEquals(1.0, gauge(registry, "eventindex_supervisor_verify_differences"));
            assertEquals(6, audit.report().verified());
        }
    }

    private static Verification verifyNext(DatasetAudit audit, Verification.Verdict expected) {
        Verification v = audit.verifyNext();
        assertNotNull(v, () -> "no verification: " + audit.report().lastError());
        assertEquals(expected, v.verdict(), () -> v.dataset() + ": " + v.differences());
        return v;
    }

    private static double gauge(PrometheusRegistry registry, String name) {
        return registry.scrape(name::equals).stream().map(s -> ((GaugeSnapshot) s).getDataPoints().get(0).getValue())
                .findFirst().orElseThrow();
    }

    /** The consolidated file of {@code dataset}: events 1..{@code events} of its run, lumi block {@code lumi}. */
    private Path write(String dataset, int events, int lumi) throws Exception {
        DatasetName name = DatasetName.parse(dataset);
        Path file = dir.resolve(dataset + ".parquet");
        String guid = String.format("%08X-5555-4000-8000-%012X", name.runNumber(), name.runNumber());
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (long e = 1; e <= events; e++) {
                w.write(EIEvent_p1.newBuilder().setRunNumber(name.runNumber()).setEventNumber(e).setLumiBlock(lumi)
                        .setTimeStamp(1_500_000_000).setTimeStampNSOffset(0).setBcid(1).setIsSimulation(false)
                        .setIsCalibration(false).setIsTestBeam(false)
                        .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken(new PoolToken(guid,
                                "POOLContainer(DataHeader)", guid, 0x202, 0x10L, e).format())).build(), guid);
            }
            w.finish(new ConsolidatedMetadata(dataset, "sig", new ConsolidatedMetadata.HeaderInfo(1, "consolidated",
                    "sig", true, true), List.of("s3://eventindex/" + dataset), List.of(), List.of(), w.events(),
                    List.of((long) name.runNumber()), 0, 1, w.finishDigest()).toKeyValues());
        }
        return file;
    }

    private static void load(EmbeddedKudu kudu, KuduTables tables, String dataset, int dspid, Path file)
            throws Exception {
        new DatasetLoader(kudu.client(), tables, LoaderSettings.defaults(), Clock.systemUTC()).load(new LoadRequest(
                DatasetName.parse(dataset), dspid, 1, "sig-" + dspid, DatasetSource.local(file),
                System.currentTimeMillis()));
    }

    private static void deleteEvent(EmbeddedKudu kudu, String dataset, long event) throws Exception {
        DatasetsRow row = new DatasetQueries(kudu.client(), TABLES).dataset(dataset).orElseThrow();
        Delete delete = kudu.client().openTable(TABLES.eventsTable()).newDelete();
        KuduSchemas.addEventKey(delete.getRow(), row.dspid(), event, row.rgid());
        KuduSession session = kudu.client().newSession();
        try {
            assertTrue(!session.apply(delete).hasRowError(), "deleted event " + event + " of " + dataset);
        } finally {
            session.close();
        }
    }
}
