package org.eventindex.operator;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.names.DatasetName;
import org.eventindex.supervisor.StateRebuild;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What {@code supervisor rebuild-state} reads of Kudu (the DATASETS row of a dataset, the highest dspid) and of HDFS
 * (the footer of a dataset's consolidated file {@code <root>/<container>/<dataset>.parquet}).
 */
final class RebuildLoads implements StateRebuild.Loads {
    private final KuduClient kudu;
    private final KuduTablesConfig tables;
    private final DatasetQueries queries;
    private final FileSystem hdfs;
    private final String root;

    RebuildLoads(KuduClient kudu, KuduTablesConfig tables, FileSystem hdfs, String root) {
        this.kudu = requireNonNull(kudu, "kudu is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.queries = new DatasetQueries(kudu, tables);
        this.hdfs = requireNonNull(hdfs, "hdfs is null");
        this.root = requireNonNull(root, "root is null");
    }

    @Override
    public Optional<StateRebuild.LoadRow> row(String dataset) throws IOException {
        Optional<DatasetsRow> row;
        try {
            row = queries.dataset(dataset);
        } catch (IOException | RuntimeException e) {
            throw new IOException("Kudu: cannot read the " + tables.datasetsTable() + " row of dataset " + dataset
                    + ": " + e.getMessage(), e);
        }
        return row.map(r -> new StateRebuild.LoadRow(dataset, r.dspid(), r.rgid(),
                r.state() == null ? "UNKNOWN" : r.state().name(), r.loadId(), r.hdfsPath(),
                r.signalTs() == null ? 0 : r.signalTs(), r.countEvents() == null ? 0 : r.countEvents()));
    }

    @Override
    public int maxDspid() throws IOException {
        try {
            KuduTable table = kudu.openTable(tables.datasetsTable());
            KuduScanner scanner = kudu.newScannerBuilder(table).setProjectedColumnNames(List.of(KuduSchemas.DSPID))
                    .build();
            int max = 0;
            try {
                while (scanner.hasMoreRows()) {
                    for (RowResult r : scanner.nextRows()) {
                        if (!r.isNull(KuduSchemas.DSPID)) {
                            max = Math.max(max, r.getInt(KuduSchemas.DSPID));
                        }
                    }
                }
            } finally {
                scanner.close();
            }
            return max;
        } catch (IOException | RuntimeException e) {
            throw new IOException("Kudu: cannot scan " + tables.datasetsTable() + " for the highest dspid: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Optional<StateRebuild.LoadFile> file(String dataset) throws IOException {
        DatasetName name = DatasetName.parse(dataset);
        Path file = hdfs.makeQualified(new Path(new Path(new Path(root), name.container()),
                dataset + ConsolidatedSchema.SUFFIX));
        try {
            if (!hdfs.exists(file)) {
                return Optional.empty();
            }
            try (ConsolidatedFileReader r = new ConsolidatedFileReader(HadoopInputFile.fromPath(file,
                    hdfs.getConf()), file.toString())) {
                ConsolidatedMetadata m = r.metadata();
                return Optional.of(new StateRebuild.LoadFile(file.toUri().getPath(), m.signalId(), m.files().stream()
                        .map(f -> new StateRebuild.LoadFileEntry(f.guid(), f.object(), f.nentries())).toList()));
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("HDFS: cannot read the footer of " + file + ": " + e.getMessage(), e);
        }
    }
}
