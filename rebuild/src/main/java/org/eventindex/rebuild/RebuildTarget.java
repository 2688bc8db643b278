package org.eventindex.rebuild;

import org.eventindex.kudu.KuduTablesConfig;

import java.io.Serializable;

import static java.util.Objects.requireNonNull;

/**
 * Where a rebuild writes, as each task needs it: the Kudu masters, the target tables' prefix and layout, and the Kudu
 * sessions per dataset (as whom: {@link TaskAccess}).
 *
 * @param loadThreads Kudu sessions writing one dataset inside a task ({@code LoaderSettings#loadThreads})
 */
public record RebuildTarget(String masters, String prefix, int buckets, int replicas, int loadThreads)
        implements Serializable {

    public RebuildTarget {
        requireNonNull(masters, "masters is null");
        requireNonNull(prefix, "prefix is null");
        tables(prefix, buckets, replicas); // checks them
        if (loadThreads < 1) {
            throw new IllegalArgumentException("loadThreads must be positive: " + loadThreads);
        }
    }

    public KuduTablesConfig tables() {
        return tables(prefix, buckets, replicas);
    }

    private static KuduTablesConfig tables(String prefix, int buckets, int replicas) {
        return new KuduTablesConfig(prefix, buckets, replicas);
    }
}
