package org.eventindex.deploy.chaos;

/** The kinds of fault the harness injects; each is lifted after a hold time, then the system must recover alone. */
enum Fault {
    KILL_SUPERVISOR("kill -9 the standby supervisor, restart it (a standby again; the active carries on)", false),
    KILL_CONSUMER("kill -9 a consumer (the one with a dataset in flight), restart it", true),
    KILL_BROKER("kill -9 one broker of the alias (a seeded choice) the moment it has stored a message (its receipt to"
            + " the sender dropped by its proxy); the flow carries on through the others, the sender sends again"
            + " through another; restarted on its own KahaDB after the hold, it delivers what it stored (time to the"
            + " supervisor and every consumer subscribed on it again measured)", false),
    PAUSE_BROKER("SIGSTOP one broker of the alias (a seeded choice); its watchdog kills it after 3 silent probes;"
            + " restarted on its own KahaDB after the hold, it delivers what it stored (time to the watchdog's kill and"
            + " to the daemons subscribed on it again measured)", false),
    KILL_ALL_BROKERS("kill -9 every broker of the alias at once, restart each on its own KahaDB after the hold", false),
    KILL_TABLET_SERVER("kill -9 the Kudu tablet server, restart it on the same data and port", true),
    KILL_DATANODE("kill -9 the HDFS DataNode, restart it on the same data", true),
    PAUSE_SUPERVISOR("SIGSTOP the active supervisor within its lease, SIGCONT after the hold (it stays active)", false),
    PAUSE_CONSUMER("SIGSTOP a consumer (the one with a dataset in flight), SIGCONT after the hold", true),
    BROKER_RESETS("reset every broker connection (TCP RST, every broker's proxy) repeatedly during the hold", false),
    BROKER_LATENCY("delay every chunk of broker traffic (every broker's proxy) during the hold", false),
    S3_RESETS("reset every S3 connection (TCP RST) repeatedly during the hold", true),
    S3_LATENCY("delay every chunk of S3 traffic during the hold", true),
    /*
     * Before the producers, as for the DataNode below: a small round's dataset can be produced, signalled and
     * consolidated within the seeded delay of a fault struck while producing, and then no spool write meets the
     * full disk (seen once group commit made the supervisor faster: the dataset was DONE 0.1 s before the fill).
     */
    SPOOL_DISK_FULL("fill the tmpfs under every consumer's spool directory before the round's producers start, until"
            + " a consumer fails a dataset", Strike.BEFORE_PRODUCERS),
    /*
     * Before the producers: a consumer writes a dataset to HDFS once, in well under a second, at the end of its work,
     * and filling the disk takes seconds. Filled while the round runs, the disk was often still filling (with more
     * than a block of room left) when that one write went through, and nothing else wrote HDFS in the round.
     */
    DATANODE_DISK_FULL("fill the tmpfs under the DataNode's data directory before the round's producers start, until"
            + " a consumer fails a dataset", Strike.BEFORE_PRODUCERS),
    KILL_ACTIVE_SUPERVISOR("kill -9 the active supervisor; the standby takes over after the lease (takeover time"
            + " measured); the killed one is started again as the standby", false),
    PAUSE_ACTIVE_SUPERVISOR("SIGSTOP the active supervisor past its lease; the standby takes over; SIGCONT: the woken"
            + " one must exit fenced out having journalled nothing more", false),
    /*
     * Partitions: silence on the bridge between hosts (HostNetwork), no error anywhere; each held, then healed, and
     * the time from the heal to the recovery named in its description measured.
     */
    SUPERVISOR_CUT_FROM_BROKERS("cut the active supervisor's host from every broker's host, heal after the hold; it"
            + " keeps its lease and journal (it still reaches ZooKeeper and HDFS) and must read what"
            + " the brokers stored meanwhile (time from the heal to it subscribed on every broker again)", false),
    BROKER_ISOLATED("cut one broker's host (a seeded choice) from the supervisors' and consumers' hosts until it holds"
            + " a producer message nobody can read, then isolate it from every host; after the hold heal: what it held"
            + " is delivered and counted once (time from the heal to its queues read)", false),
    /*
     * Consumer cuts are in place before the round's producers start, as in HostsFlowMain: a consumer then takes a
     * dataset while cut and waits on the silent network with it in flight. Struck once a consumer was seen with a
     * dataset in flight, the cut sometimes came after a small dataset was done (CI, ChaosIT: "nothing in flight").
     */
    CONSUMER_CUT_FROM_HDFS("cut every consumer's host from HDFS's host before the round's producers start; once a"
            + " consumer has a dataset in flight (taken while cut), heal after the hold (time from the heal to every"
            + " consumer done)", Strike.BEFORE_PRODUCERS),
    CONSUMER_CUT_FROM_KUDU("cut every consumer's host from Kudu's host before the round's producers start; once a"
            + " consumer has a dataset in flight (taken while cut), heal after the hold (time from the heal to every"
            + " consumer done)", Strike.BEFORE_PRODUCERS),
    PRODUCER_CUT_FROM_BROKERS("hold the next upload (an S3 PUT) at the S3 proxy, cut the producers' host from every"
            + " broker's host, let the upload through: the producer has stored its object and cannot announce it; heal"
            + " after the hold (time from the heal to a producer message recorded)", false),
    SUPERVISOR_ISOLATED("isolate the active supervisor's host from every host; the standby takes over once the"
            + " ZooKeeper session expires (takeover measured); heal after the hold: the old one must exit fenced out"
            + " without an active sample, its journal generation unchanged, the consumers at the new token (time from"
            + " the heal to the old one standing by)", false),
    SUPERVISOR_CUT_FROM_STORE("cut the active supervisor's host from the ZooKeeper servers' and HDFS's hosts (not from"
            + " the brokers'): it suspends then fences itself out, the standby takes over (takeover measured), never"
            + " two active;"
            + " heal after the hold (time from the heal to the old one standing by)", false),
    ZK_MINORITY("isolate one ZooKeeper server of three (a seeded choice between the two the active's session is not"
            + " on; the leader in ChaosIT); the flow carries on with no takeover (same active, same token; the active"
            + " may suspend meanwhile); heal after the hold (time from"
            + " the heal to the server serving in the quorum again)", false),
    /*
     * The round of this fault has one dataset whose job's file is above the producer's multipart threshold
     * (UploadSettings.DEFAULT, 8 MiB): it is uploaded in two parts, and the second part is the trigger.
     */
    PRODUCER_CUT_FROM_S3_MID_MULTIPART("hold the second part of a multipart upload (PUT ...partNumber=2) at the S3"
            + " proxy, cut the producers' host from S3's, let the part through to S3 (its answer is lost on the cut);"
            + " heal after the hold: the producer fails or retries cleanly, the job counted once (time from the heal to"
            + " a producer message recorded)", false);

    /** When, in a round, a fault strikes. */
    enum Strike {
        /** while the producers run, after a seeded delay */
        WHILE_PRODUCING,
        /** once a consumer has a dataset in flight */
        WHILE_CONSUMING,
        /** before the round's producers start: in place before any data of the round moves */
        BEFORE_PRODUCERS
    }

    private final String how;
    private final Strike strike;

    Fault(String how, boolean whileConsuming) {
        this(how, whileConsuming ? Strike.WHILE_CONSUMING : Strike.WHILE_PRODUCING);
    }

    Fault(String how, Strike strike) {
        this.how = how;
        this.strike = strike;
    }

    /** How the fault is injected and lifted. */
    String how() {
        return how;
    }

    Strike strike() {
        return strike;
    }

    /** True when the fault is injected once a consumer has a dataset in flight. */
    boolean whileConsuming() {
        return strike == Strike.WHILE_CONSUMING;
    }

    boolean needsDisk() {
        return this == SPOOL_DISK_FULL || this == DATANODE_DISK_FULL;
    }

    /** A partition between hosts (healed after its hold). */
    boolean isPartition() {
        return ordinal() >= SUPERVISOR_CUT_FROM_BROKERS.ordinal();
    }

    /** The fault's round needs a dataset with a file above the producer's multipart threshold. */
    boolean needsMultipartFile() {
        return this == PRODUCER_CUT_FROM_S3_MID_MULTIPART;
    }
}
