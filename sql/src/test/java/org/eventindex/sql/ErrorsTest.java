package org.eventindex.sql;

import org.apache.spark.SparkException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ErrorsTest {

    @Test
    void aFailedKuduScanInASparkTaskIsItsFirstLineWithoutTheRpcTrace() {
        // as printed by bin/eventindex sql when the only tablet server was stopped
        SparkException e = new SparkException("Job aborted due to stage failure: Task 1 in stage 0.0 failed 1 times,"
                + " most recent failure: Lost task 1.0 in stage 0.0 (TID 1) (192.0.2.2 executor driver):"
                + " java.lang.RuntimeException: org.apache.kudu.client.NonRecoverableException: cannot complete"
                + " before timeout: ScanRequest(scannerId=null, tablet=b6f3, attempt=19, KuduRpc(method=Scan,"
                + " tablet=b6f3, attempt=19, TimeoutTracker(timeout=30000, elapsed=30001), Trace Summary(30000 ms):"
                + " Sent(19), Received(19), Delayed(19)\n Sent: (b6f3, [ Scan, 19 ])\n Received: (b6f3,"
                + " [ NETWORK_ERROR, 19 ])))\n\tat org.apache.kudu.spark.kudu.RowIterator.hasNext(KuduRDD.scala:1)\n"
                + "Driver stacktrace:\n\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages");
        assertEquals("a Spark task failed: Kudu NonRecoverableException: cannot complete before timeout",
                Errors.describe(e));
    }

    @Test
    void otherFailuresAreTheDeepestCause() {
        Exception e = new IllegalStateException("outer", new java.io.IOException("disk full\nsecond line\n\tat x.y"));
        assertEquals("IOException: disk full\nsecond line", Errors.describe(e));
        assertEquals("variable run is not set", Errors.describe(new IllegalArgumentException(
                "variable run is not set")));
        assertEquals("NullPointerException", Errors.describe(new NullPointerException()));
    }
}
