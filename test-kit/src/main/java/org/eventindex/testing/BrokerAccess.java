package org.eventindex.testing;

import org.eventindex.message.Queues;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Who may do what on the broker: the groups of the deployment and, per destination, which groups may read (consume),
 * write (send) and admin (create) it. Everything not listed is denied. This is the one description of the access
 * rules: the embedded broker of tests and the demo applies it, and the pair's templates
 * {@code broker-host/activemq/activemq.xml} ships the same rules (a test keeps them in step).
 * It lives in the test kit, beside the embedded broker, because neither the producer nor a daemon reads it: a
 * production broker enforces the rules of its template, and the clients only log in as a member of their group.
 *
 * <ul>
 *   <li>producers (grid jobs, least trusted: many hosts, shared credentials) may only send to the supervisor queue;</li>
 *   <li>the supervisor reads its three queues, sends signals to consumers and quarantined messages aside;</li>
 *   <li>consumers read signals and send reports to the supervisor's control queue, heartbeats to its heartbeat
 *   queue;</li>
 *   <li>operators send manifests and commands to the control queue;</li>
 *   <li>admins may do anything (dead-letter queue, browsing, destination management).</li>
 * </ul>
 * Temporary queues ({@link #temporaryDestinations()}) are the reply queues of operator commands: an operator creates
 * and reads its own, the supervisor only sends its answer into it; no other group may use them.
 * Destinations are created when the broker starts, so no client needs admin rights.
 */
public final class BrokerAccess {
    public static final String PRODUCERS = "producers";
    public static final String SUPERVISORS = "supervisors";
    public static final String CONSUMERS = "consumers";
    public static final String OPERATORS = "operators";
    public static final String ADMINS = "admins";
    /** Default quarantine queue of the shipped template (the supervisor's {@code supervisor.queue.quarantine}). */
    public static final String QUARANTINE = "/queue/atlas.eventindex.supervisor.quarantine";
    /** ActiveMQ's dead-letter queue (NACKed and expired messages). */
    public static final String DLQ = "ActiveMQ.DLQ";

    /**
     * Access to one destination.
     *
     * @param name  ActiveMQ destination name (no {@code /queue/} prefix); {@code >} is ActiveMQ's wildcard
     * @param topic true for a topic entry
     */
    public record Entry(String name, boolean topic, Set<String> read, Set<String> write, Set<String> admin) {
        public Entry {
            Objects.requireNonNull(name, "name is null");
            read = Set.copyOf(read);
            write = Set.copyOf(write);
            admin = Set.copyOf(admin);
        }
    }

    private static final List<Entry> ENTRIES = List.of(
            new Entry(">", false, Set.of(ADMINS), Set.of(ADMINS), Set.of(ADMINS)),
            new Entry(">", true, Set.of(ADMINS), Set.of(ADMINS), Set.of(ADMINS)),
            new Entry(queue(Queues.SUPERVISOR), false, Set.of(SUPERVISORS), Set.of(PRODUCERS), Set.of()),
            new Entry(queue(Queues.SUPERVISOR_CONTROL), false, Set.of(SUPERVISORS), Set.of(CONSUMERS, OPERATORS),
                    Set.of()),
            new Entry(queue(Queues.SUPERVISOR_HEARTBEAT), false, Set.of(SUPERVISORS), Set.of(CONSUMERS), Set.of()),
            new Entry(queue(Queues.CONSUMER), false, Set.of(CONSUMERS), Set.of(SUPERVISORS), Set.of()),
            new Entry(queue(QUARANTINE), false, Set.of(OPERATORS), Set.of(SUPERVISORS), Set.of()),
            new Entry(DLQ, false, Set.of(OPERATORS), Set.of(), Set.of()),
            // ActiveMQ's own clients (JMS, the web console) create and read advisory topics; STOMP clients do not.
            new Entry("ActiveMQ.Advisory.>", true, Set.of(PRODUCERS, SUPERVISORS, CONSUMERS, OPERATORS),
                    Set.of(PRODUCERS, SUPERVISORS, CONSUMERS, OPERATORS),
                    Set.of(PRODUCERS, SUPERVISORS, CONSUMERS, OPERATORS)));

    private static final Entry TEMPORARY = new Entry("temporary destinations", false, Set.of(OPERATORS, ADMINS),
            Set.of(SUPERVISORS, ADMINS), Set.of(OPERATORS, ADMINS));

    private BrokerAccess() {
    }

    /**
     * Who may read, write and create temporary destinations (ActiveMQ's {@code tempDestinationAuthorizationEntry};
     * the entry's name is only a label).
     */
    public static Entry temporaryDestinations() {
        return TEMPORARY;
    }

    /** Every entry, the admins' wildcards first. */
    public static List<Entry> entries() {
        return ENTRIES;
    }

    /** The queues created when the broker starts (ActiveMQ names). */
    public static List<String> queues() {
        return List.of(queue(Queues.SUPERVISOR), queue(Queues.SUPERVISOR_CONTROL), queue(Queues.SUPERVISOR_HEARTBEAT),
                queue(Queues.CONSUMER), queue(QUARANTINE), DLQ);
    }

    /** {@code /queue/x} to the ActiveMQ name {@code x}. */
    public static String queue(String stompDestination) {
        return stompDestination.startsWith("/queue/") ? stompDestination.substring("/queue/".length())
                : stompDestination;
    }
}
