package org.eventindex.kudu;

import static java.util.Objects.requireNonNull;

/**
 * Where and how the EventIndex tables live in one Kudu cluster.
 *
 * @param prefix      prepended to every table name ({@code prefix + "EVENTS"}), so tests and deployments sharing a
 *                    cluster do not collide; letters, digits, {@code _ . -} only, may be empty
 * @param hashBuckets HASH(eventnumber) partitions per epoch range of EVENTS and DUPLICATEDEVENTS (seed 001: 64)
 * @param replicas    tablet replicas: 1 for tests, 3 in production (an odd number, as Kudu requires)
 */
public record KuduTablesConfig(String prefix, int hashBuckets, int replicas) {
    public static final int DEFAULT_HASH_BUCKETS = 64;
    public static final int DEFAULT_REPLICAS = 3;
    /**
     * The first epoch (range {@code rgid}) of the event tables: the range {@code kudu-loader create-tables} adds and
     * the one the supervisor signals its first datasets into ({@code supervisor.kudu.epoch}), unless told otherwise.
     */
    public static final int FIRST_EPOCH = 1;

    public KuduTablesConfig {
        requireNonNull(prefix, "prefix is null");
        if (!prefix.matches("[A-Za-z0-9_.\\-]*")) {
            throw new IllegalArgumentException("table prefix may hold only letters, digits, '_', '.', '-': '"
                    + prefix + "'");
        }
        if (hashBuckets < 2 || hashBuckets > 1024) {
            throw new IllegalArgumentException("hashBuckets must be within 2..1024 (Kudu needs at least 2): "
                    + hashBuckets);
        }
        if (replicas < 1 || replicas % 2 == 0) {
            throw new IllegalArgumentException("replicas must be a positive odd number: " + replicas);
        }
    }

    /** Production defaults: no prefix, 64 buckets, 3 replicas. */
    public static KuduTablesConfig defaults() {
        return new KuduTablesConfig("", DEFAULT_HASH_BUCKETS, DEFAULT_REPLICAS);
    }

    public String datasetsTable() {
        return prefix + "DATASETS";
    }

    public String eventsTable() {
        return prefix + "EVENTS";
    }

    public String duplicatedEventsTable() {
        return prefix + "DUPLICATEDEVENTS";
    }

    public String mcEventsTable() {
        return prefix + "MCEVENTS";
    }

    public String eventsOverlapTable() {
        return prefix + "EVENTSOVERLAP";
    }

    public String triggerCountTable() {
        return prefix + "TRIGGERCOUNT";
    }

    /** Every table's name, DATASETS first. */
    public java.util.List<String> tables() {
        return java.util.List.of(datasetsTable(), eventsTable(), duplicatedEventsTable(), mcEventsTable(),
                eventsOverlapTable(), triggerCountTable());
    }
}
