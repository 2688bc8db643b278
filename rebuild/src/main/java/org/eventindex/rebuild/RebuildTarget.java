package org.eventindex.rebuild;

import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.Serializable;

import static java.util.Objects.requireNonNull;

/**
 * Where a rebuild writes, as each task needs it: the Kudu masters, the target tables' prefix and layout, the Kudu
 * sessions per dataset, and the driver's Kudu authentication credentials (null without Kerberos) that the executors
 * import instead of logging in themselves, as kudu-spark does.
 *
 * @param loadThreads Kudu sessions writing one dataset inside a task ({@code LoaderSettings#loadThreads})
 */
public record RebuildTarget(String masters, String prefix, int buckets, int replicas, int loadThreads,
                            byte[] kuduCredentials) implements Serializable {

    public RebuildTarget {
        requireNonNull(masters, "masters is null");
        requireNonNull(prefix, "prefix is null");
        tables(prefix, buckets, replicas); // checks them
        if (loadThreads < 1) {
            throw new IllegalArgumentException("loadThreads must be positive: " + loadThreads);
        }
    }

    /** This target with the driver's Kudu credentials for the executors. */
    public RebuildTarget withCredentials(byte[] credentials) {
        return new RebuildTarget(masters, prefix, buckets, replicas, loadThreads, credentials);
    }

    /** A Kudu client of these masters, on an executor: acting with the driver's credentials when given. */
    KuduClient connect() {
        KuduClient client = new KuduClient.KuduClientBuilder(masters).build();
        if (kuduCredentials != null) {
            client.importAuthenticationCredentials(kuduCredentials);
        }
        return client;
    }

    public KuduTablesConfig tables() {
        return tables(prefix, buckets, replicas);
    }

    private static KuduTablesConfig tables(String prefix, int buckets, int replicas) {
        return new KuduTablesConfig(prefix, buckets, replicas);
    }
}
