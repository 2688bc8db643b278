package org.eventindex.deploy.chaos;

/** The kinds of fault the harness injects; each is lifted after a hold time, then the system must recover alone. */
enum Fault {
    KILL_SUPERVISOR("kill -9 the supervisor, restart it on the same journal", false),
    KILL_CONSUMER("kill -9 a consumer (the one with a dataset in flight), restart it", true),
    KILL_BROKER("kill -9 the broker, restart it on the same KahaDB store and port", false),
    KILL_TABLET_SERVER("kill -9 the Kudu tablet server, restart it on the same data and port", true),
    KILL_DATANODE("kill -9 the HDFS DataNode, restart it on the same data", true),
    PAUSE_SUPERVISOR("SIGSTOP the supervisor, SIGCONT after the hold", false),
    PAUSE_CONSUMER("SIGSTOP a consumer (the one with a dataset in flight), SIGCONT after the hold", true),
    BROKER_RESETS("reset every broker connection (TCP RST) repeatedly during the hold", false),
    BROKER_LATENCY("delay every chunk of broker traffic during the hold", false),
    S3_RESETS("reset every S3 connection (TCP RST) repeatedly during the hold", true),
    S3_LATENCY("delay every chunk of S3 traffic during the hold", true),
    SPOOL_DISK_FULL("fill the tmpfs under every consumer's spool directory until a consumer fails a dataset", false),
    DATANODE_DISK_FULL("fill the tmpfs under the DataNode's data directory until a consumer fails a dataset", false);

    private final String how;
    private final boolean whileConsuming;

    Fault(String how, boolean whileConsuming) {
        this.how = how;
        this.whileConsuming = whileConsuming;
    }

    /** How the fault is injected and lifted. */
    String how() {
        return how;
    }

    /** True when the fault is injected once a consumer has a dataset in flight (else while producers run). */
    boolean whileConsuming() {
        return whileConsuming;
    }

    boolean needsDisk() {
        return this == SPOOL_DISK_FULL || this == DATANODE_DISK_FULL;
    }
}
