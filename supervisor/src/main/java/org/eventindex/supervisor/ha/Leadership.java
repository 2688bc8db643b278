package org.eventindex.supervisor.ha;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.supervisor.journal.JournalHandOver;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Which of two supervisors is active, with a lease and a fencing token that strictly increases at every takeover:
 * in a shared journal directory ({@link SharedDirLeadership}, decision 0039) or in ZooKeeper with the journal on
 * HDFS ({@link ZooKeeperLeadership}, decision 0043). {@link #check} is called before anything is journalled, after
 * each sync and before each acknowledgement, signal or answer: once this supervisor lost the lease it reports the
 * fence ({@code onFenced}, which in the daemon ends the process at once) and throws {@link FencedException}.
 */
public interface Leadership extends AutoCloseable {
    /** The daemon's exit status once fenced out (EX_TEMPFAIL; systemd starts it again, as a standby). */
    int EXIT_FENCED = 75;

    /** What this supervisor is now. */
    enum Role { STANDBY, ACTIVE, FENCED, RELEASED }

    /**
     * How this supervisor became active.
     *
     * @param token       the token taken
     * @param previous    the holder it took over from ("" for the first one)
     * @param waited      from the last sign of life of the old holder seen to taking the token (0 when released)
     * @param handOver    from taking the token to consuming (the fence, the copy of the old journal, its replay)
     * @param copied      what was copied (the takeover point)
     */
    record Takeover(long token, String previous, Duration waited, Duration handOver,
                    JournalHandOver.Copied copied) {
    }

    /**
     * Waits until this supervisor holds the lease, takes the next token, fences the previous holder and hands the
     * journal over into this token's own directory; returns that directory (the journal to open), or empty when
     * {@link #close} came first.
     */
    Optional<JournalFiles> awaitActive() throws IOException, InterruptedException;

    /** Called by the supervisor once it consumes: the takeover is over. */
    void activated();

    /**
     * Throws when this supervisor may not act now: fenced out, not holding the lease at all, or (ZooKeeper store) its
     * lease unconfirmed while its session may still be alive ({@link LeaseSuspendedException}). Cheap, never blocks.
     */
    void check() throws FencedException;

    /**
     * {@link #check}, except that a suspended lease is waited for: returns once the lease is confirmed again (the same
     * session, the same token), throws {@link FencedException} once this supervisor is fenced out or stops holding. For
     * a caller that holds no lock others need (a queue worker before its acknowledgement, the signal sender); the wait
     * is bounded by the suspension's own bound (a session timeout, then the fence).
     */
    default void awaitLease() throws FencedException, InterruptedException {
        check();
    }

    /**
     * Why the active may not act for now although it holds the lease (its ZooKeeper connection suspended, for
     * {@code /ready}); empty when it may, or when it is not active.
     */
    default Optional<String> suspension() {
        return Optional.empty();
    }

    /** On a clean stop, after the journal is closed: the standby may take over at once. */
    void release();

    /**
     * Gives the lease up for good because this supervisor cannot go on (its journal's store failed): released so that
     * the standby may take over at once, then fenced (reported, the daemon exits and starts again as a standby).
     */
    void stepDown(String why);

    /** A standby stops waiting ({@link #awaitActive} returns empty); an active goes on holding until released. */
    void stopWaiting();

    /** Stops waiting and holding (without releasing). */
    @Override
    void close();

    Role role();

    long token();

    String id();

    /** What /ready, /supervisor and the console say about the role. */
    Map<String, Object> info();

    /** Why a standby is not ready (it consumes nothing), for /ready. */
    String standbyReason();

    /** The metrics every kind of leadership serves; returns the takeovers counter. */
    static Counter registerMetrics(PrometheusRegistry registry, Leadership l, DoubleSupplier leaseAgeSeconds,
                                   Supplier<Takeover> takeover) {
        Counter takeovers = Counter.builder().name("eventindex_supervisor_takeovers_total")
                .help("Times this supervisor took the lease from another one (fencing it).").register(registry);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_active", "1 while this supervisor holds the lease and"
                + " consumes, 0 as a standby, while its lease is suspended or once fenced out.",
                () -> l.role() == Role.ACTIVE && l.suspension().isEmpty() ? 1 : 0);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_lease_suspended", "1 while the active's lease is"
                + " suspended (its ZooKeeper connection lost, its session not known to be expired): it journals,"
                + " acknowledges and signals nothing until the lease is confirmed again or it is fenced out.",
                () -> l.suspension().isPresent() ? 1 : 0);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_lease_age_seconds", "Active: seconds since it last"
                + " renewed (confirmed) its lease. Standby: seconds since it last saw the active's lease renewed.",
                leaseAgeSeconds);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_fencing_token",
                "Token held (active) or seen held by the active (standby); 0 before any.", l::token);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_takeover_seconds", "How long this supervisor's"
                + " takeover took, from the last sign of life of the old holder it saw to consuming; 0 before one.",
                () -> Optional.ofNullable(takeover.get()).map(t -> (t.waited().toMillis()
                        + t.handOver().toMillis()) / 1000.0).orElse(0.0));
        return takeovers;
    }
}
