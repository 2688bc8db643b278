package org.eventindex.rebuild.bench;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.SparkStandalone;

import java.util.stream.IntStream;

/** What both rebuild benchmarks do around one rebuild on the cluster: the application, and the tables after. */
final class RebuildRuns {
    /** HASH buckets of the benchmarks' tables. */
    static final int BUCKETS = 4;

    private RebuildRuns() {
    }

    /**
     * Application {@code name} on {@code spark} with {@code executors} one-core executors, every one started and warm
     * when it returns (the driver counts as one), so that no phase's clock includes starting them.
     */
    static JavaSparkContext application(SparkStandalone spark, String name, int executors) {
        SparkConf conf = new SparkConf().setAppName(name).setMaster(spark.masterUrl());
        SparkStandalone.applicationSettings(executors, "512m").forEach(conf::set);
        // executors with both JIT compilers, as in production (the tests' settings start them C1-only)
        conf.set("spark.executor.extraJavaOptions", "-XX:+UseSerialGC");
        JavaSparkContext sc = new JavaSparkContext(conf);
        while (sc.sc().statusTracker().getExecutorInfos().length < executors + 1) {
            sc.parallelize(IntStream.range(0, executors).boxed().toList(), executors).count();
        }
        return sc;
    }

    /** Deletes the tables a rebuild wrote under {@code prefix}. */
    static void dropTables(KuduClient client, String prefix) throws KuduException {
        for (String table : new KuduTablesConfig(prefix, BUCKETS, 1).tables()) {
            if (client.tableExists(table)) {
                client.deleteTable(table);
            }
        }
    }
}
