package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterErrors;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.DatasetVerifier;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduProbe;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * {@link EpochRanges} on a real Kudu cluster through {@link KuduTables#ensureEpoch(int)}, as the Kerberos principal
 * of {@link SupervisorConfig.Epochs#kerberos()} when one is configured.
 */
final class KuduEpochRanges implements EpochRanges {
    private final ClusterAccess cluster;
    private final KuduClient client;
    private final KuduTables tables;
    private final String masters;

    KuduEpochRanges(SupervisorConfig.Epochs settings) {
        Objects.requireNonNull(settings, "settings is null");
        this.masters = settings.kuduMasters();
        this.cluster = ClusterAccess.open(settings.kerberos(), null);
        this.client = cluster.kuduClient(masters);
        this.tables = new KuduTables(client, new KuduTablesConfig(settings.tablePrefix(), settings.hashBuckets(),
                settings.replicas()));
    }

    /** The Kerberos login's metrics (renewal failures, ticket end), when the supervisor logged in. */
    void registerMetrics(PrometheusRegistry registry) {
        cluster.register(registry);
    }

    /** Returns when the masters answer a table listing (for {@code /ready}); throws naming them when they do not. */
    void probe() throws IOException {
        KuduProbe.check(client, List.of());
    }

    /**
     * What the scheduled verify reads, with this client and login: the DATASETS rows, and a dataset verified by the
     * loader's {@link DatasetVerifier} against its file in HDFS (read as the Kerberos principal when one is set).
     */
    DatasetAudit.Target verifyTarget() {
        DatasetQueries catalogue = new DatasetQueries(client, tables.config());
        DatasetVerifier verifier = new DatasetVerifier(client, tables);
        return new DatasetAudit.Target() {
            @Override
            public List<DatasetsRow> datasets() throws IOException {
                return catalogue.datasets();
            }

            @Override
            public org.eventindex.kudu.Verification verify(DatasetsRow dataset) throws IOException {
                if (dataset.hdfsPath() == null) {
                    throw new IOException("dataset " + dataset.dataset() + " has no hdfs_path in DATASETS");
                }
                URI file = URI.create(dataset.hdfsPath());
                return verifier.verify(dataset, DatasetSource.hadoop(cluster.fileSystem(file),
                        new org.apache.hadoop.fs.Path(file)));
            }
        };
    }

    @Override
    public void ensure(int epoch) throws IOException {
        try {
            tables.ensureEpoch(epoch);
        } catch (KuduException e) {
            String why = ClusterErrors.unreachable(e) ? "unreachable (" + e.getStatus() + ")" : e.getMessage();
            throw new IOException("Kudu masters " + masters + ": cannot add the range of epoch " + epoch + ": "
                    + why, e);
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (KuduException e) {
            throw new IllegalStateException("closing the Kudu client of " + masters + " failed: " + e.getMessage(), e);
        } finally {
            cluster.close();
        }
    }
}
