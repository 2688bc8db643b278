package org.eventindex.operator;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterErrors;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.names.DatasetName;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The HDFS and Kudu part of {@code supervisor delete-dataset}, done by the command itself (decision 0025): the
 * dataset's file {@code <root>/<container>/<dataset>.parquet} and a consumer's temp files of it, then its Kudu rows
 * (what {@code kudu-loader delete} does, {@link DatasetLoader#delete(KuduClient, KuduTablesConfig, DatasetName)}:
 * EVENTS, MCEVENTS, DUPLICATEDEVENTS, TRIGGERCOUNT, EVENTSOVERLAP, then DATASETS). Each step deletes what is there
 * and accepts what is already gone, so a run interrupted half-way is finished by running it again. Failures come back
 * in one line naming the cluster and the reason ({@link ClusterErrors}), never a Hadoop or Kudu stack trace.
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
        Path dir = new Path(new Path(root), dataset.container());
        String name = dataset.toString();
        try {
            // as the logged-in user, its failures in one readable line (an unreachable NameNode named)
            return access.hdfsCall(hdfs, () -> {
                List<String> deleted = new ArrayList<>();
                try (FileSystem fs = FileSystem.newInstance(hdfs, access.configuration())) {
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
                }
                return deleted;
            });
        } catch (IOException e) {
            throw new IOException("HDFS " + hdfs + ": cannot delete the file of dataset " + name + " in " + dir + ": "
                    + ClusterErrors.oneLine(e), e);
        }
    }

    /**
     * Deletes the dataset's Kudu rows, waiting up to {@code timeout} for the masters.
     *
     * @return false when DATASETS did not hold it (nothing to delete)
     */
    static boolean deleteKuduRows(ClusterAccess access, String masters, KuduTablesConfig tables, DatasetName dataset,
                                  Duration timeout) throws IOException {
        try (KuduClient client = access.connectedKuduClient(masters, timeout)) {
            return DatasetLoader.delete(client, tables, dataset);
        } catch (IOException | RuntimeException e) {
            Throwable kudu = e;
            while (kudu != null && !(kudu instanceof KuduException)) {
                kudu = kudu.getCause();
            }
            String why = kudu instanceof KuduException k ? ClusterErrors.oneLine(ClusterErrors.kudu(masters, timeout, k))
                    : ClusterErrors.oneLine(e);
            throw new IOException("Kudu " + masters + ": cannot delete the rows of dataset " + dataset + ": " + why, e);
        }
    }
}
