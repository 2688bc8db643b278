package org.eventindex.message;

/** Default STOMP destinations (each is configurable in the daemons). */
public final class Queues {
    /** Producers -> supervisor: {@link ProducerMessage}. The experiment's existing name. */
    public static final String SUPERVISOR = "/queue/atlas.eventindex.supervisor";
    /**
     * Consumers and operators -> supervisor: {@link ConsumerReport}, {@link ConsumerHeartbeat} (transient) and
     * {@link DatasetManifest}.
     */
    public static final String SUPERVISOR_CONTROL = "/queue/atlas.eventindex.supervisor.control";
    /** Supervisor -> consumers (competing): {@link ConsumerSignal}. */
    public static final String CONSUMER = "/queue/atlas.eventindex.consumer";

    private Queues() {
    }
}
