package org.eventindex.message;

/** Default STOMP destinations (each is configurable in the daemons). */
public final class Queues {
    /** Producers -> supervisor: {@link ProducerMessage}. The experiment's existing name. */
    public static final String SUPERVISOR = "/queue/atlas.eventindex.supervisor";
    /** Consumers and operators -> supervisor: {@link ConsumerReport} and {@link DatasetManifest}. */
    public static final String SUPERVISOR_CONTROL = "/queue/atlas.eventindex.supervisor.control";
    /**
     * Consumers -> supervisor: {@link ConsumerHeartbeat}, transient (non-persistent, expiring), apart from the control
     * queue's durable messages so that readers of reports never see them and a backlog of reports never delays them.
     */
    public static final String SUPERVISOR_HEARTBEAT = "/queue/atlas.eventindex.supervisor.heartbeat";
    /** Supervisor -> consumers (competing): {@link ConsumerSignal}. */
    public static final String CONSUMER = "/queue/atlas.eventindex.consumer";

    private Queues() {
    }
}
