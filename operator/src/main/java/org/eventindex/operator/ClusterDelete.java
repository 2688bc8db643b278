package org.eventindex.operator;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.names.DatasetName;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The HDFS and Kudu part of {@code supervisor delete-dataset}, done by the command itself (decision 0025): the
 * dataset's file {@code <root>/<container>/<dataset>.parquet} and a consumer's temp files of it, then its Kudu rows
 * (what {@code kudu-loader delete} does, {@link DatasetLoader#delete(KuduClient, KuduTablesConfig, DatasetName)}:
 * EVENTS, MCEVENTS, DUPLICATEDEVENTS, TRIGGERCOUNT, EVENTSOVERLAP, then DATASETS). Each step deletes what is there
 * and accepts what is already gone, so a run interrupted half-way is finished by running it again.
 */
final class ClusterDelete {
    private ClusterDelete() {
    }

    /**
     * Deletes the dataset's file and the temp files of interrupted writes of it in {@code root/<container>/}.
     *
     * @return the paths deleted (empty when there was nothing)
     */
    static List<String> deleteHdfsFile(ClusterAccess access, URI hdfs, String root, DatasetName dataset)
            throws IOException {
        Objects.requireNonNull(access, "access is null");
        List<String> deleted = new ArrayList<>();
        Path dir = new Path(new Path(root), dataset.container());
        String name = dataset.toString();
        try (FileSystem fs = access.fileSystem(hdfs)) {
            FileStatus[] files;
            try {
                files = fs.listStatus(dir);
            } catch (FileNotFoundException e) {
                return deleted;
            }
            String file = name + ConsolidatedSchema.SUFFIX;
            for (FileStatus f : files) {
                String n = f.getPath().getName();
                boolean mine = n.equals(file) || n.startsWith("." + file + ".") && n.endsWith(".tmp");
                if (mine && (fs.delete(f.getPath(), false) || !fs.exists(f.getPath()))) {
                    deleted.add(f.getPath().toUri().getPath());
                }
            }
        } catch (IOException e) {
            throw new IOException("HDFS " + hdfs + ": cannot delete the file of dataset " + name + " in " + dir + ": "
                    + e.getMessage(), e);
        }
        return deleted;
    }

    /**
     * Deletes the dataset's Kudu rows.
     *
     * @return false when DATASETS did not hold it (nothing to delete)
     */
    static boolean deleteKuduRows(ClusterAccess access, String masters, KuduTablesConfig tables, DatasetName dataset)
            throws IOException {
        try (KuduClient client = access.kuduClient(masters)) {
            return DatasetLoader.delete(client, tables, dataset);
        } catch (IOException | RuntimeException e) {
            throw new IOException("Kudu " + masters + ": cannot delete the rows of dataset " + dataset + ": "
                    + e.getMessage(), e);
        }
    }
}
