package org.eventindex.rebuild;

import org.apache.spark.Partitioner;

/**
 * Sends each tablet's rows ({@link Routed#key()}) to one write task of {@code tasks}: task {@code k} writes the
 * tablets numbered {@code k} modulo {@code tasks}, and no other task writes them.
 */
final class TabletPartitioner extends Partitioner {
    private final int tasks;

    TabletPartitioner(int tasks) {
        if (tasks < 1) {
            throw new IllegalArgumentException("tasks must be positive: " + tasks);
        }
        this.tasks = tasks;
    }

    @Override
    public int numPartitions() {
        return tasks;
    }

    @Override
    public int getPartition(Object key) {
        return Math.floorMod((Integer) key, tasks);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TabletPartitioner p && p.tasks == tasks;
    }

    @Override
    public int hashCode() {
        return tasks;
    }
}
