package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.retry.Outage;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.supervisor.journal.JournalHandOver;
import org.eventindex.supervisor.journal.LocalJournalFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The {@link Leadership} of two supervisors sharing a journal directory on a shared file system
 * ({@code supervisor.ha.store=directory}): a lease and a fencing token in files ({@link SharedJournalDir} has the
 * files, docs/operations.md and decision 0039 the reasoning).
 * <p>
 * A standby ({@link #awaitActive}) watches the holder's lease file; when it did not change for
 * {@code supervisor.ha.lease} on the standby's own clock (no clocks are compared between machines), or says the
 * holder released it, the standby takes the next token (which fences the old holder), copies the old generation's
 * journal into its own ({@link JournalHandOver}: the takeover point) and becomes active. The active renews its lease
 * every {@code supervisor.ha.renew.interval}; {@link #check} is called before anything is journalled, after each fsync
 * and before each acknowledgement, signal or answer: once the next token exists it reports the fence
 * ({@code onFenced}, which in the daemon ends the process at once) and throws {@link FencedException}.
 */
public final class SharedDirLeadership extends LeaseHolder {
    private static final Logger LOG = LoggerFactory.getLogger(SharedDirLeadership.class);

    private final SharedJournalDir dir;
    private final AtomicLong renewals = new AtomicLong();
    /** Standby: when the holder's lease last changed as seen here. Active: the last successful renewal. */
    private volatile long leaseNanos = System.nanoTime();

    /**
     * @param root     the shared journal directory ({@code supervisor.journal.dir})
     * @param id       this supervisor's name in the lease
     * @param onFenced called once, with the reason, when this supervisor finds itself fenced out
     */
    public SharedDirLeadership(SupervisorConfig.Ha settings, Path root, String id, PrometheusRegistry registry,
                               Consumer<String> onFenced) {
        super(settings, id, registry, onFenced);
        this.dir = new SharedJournalDir(root);
    }

    /** Whether {@code supervisor.journal.dir} was ever used by supervisors with a standby (a fence file exists). */
    public static boolean sharedLayout(Path root) throws IOException {
        return new SharedJournalDir(root).currentToken() > 0;
    }

    /**
     * Waits until this supervisor holds the lease, takes the next token and hands the journal over into a new
     * generation; returns that generation's directory (the journal to open), or empty when {@link #close} came first.
     * Renewals start before the copy, so a slow copy does not lose the lease it just took.
     */
    @Override
    public Optional<JournalFiles> awaitActive() throws IOException, InterruptedException {
        String seen = null;
        long seenToken = -1;
        leaseNanos = System.nanoTime();
        long poll = Math.max(10, settings.renew().toMillis() / 2);
        Outage shared = new Outage("shared journal directory " + dir.root(), LOG);
        int failures = 0;
        while (stopping.getCount() > 0) {
            long current;
            String lease;
            try {
                current = dir.currentToken();
                lease = current == 0 ? "" : dir.lease(current).orElse("");
                shared.reachable();
                failures = 0;
            } catch (IOException e) {
                // no reason to stop standing by: once the directory answers again, a lease unchanged since the last
                // look is taken over (the fence keeps the old holder out, whatever it did meanwhile)
                shared.retryingEvery("standby " + id + " cannot read it: " + e, ++failures, Duration.ofMillis(poll));
                stopping.await(poll, TimeUnit.MILLISECONDS);
                continue;
            }
            if (current == 0) {
                if (dir.tryTake(1, id)) {
                    return Optional.of(new LocalJournalFiles(becomeActive(1, "", Duration.ZERO)));
                }
                continue;
            }
            if (current != seenToken || !lease.equals(seen)) {
                if (current != seenToken) {
                    LOG.info("standby {}: the active supervisor holds token {} ({})", id, current,
                            lease.isEmpty() ? "no lease written yet" : field(lease, "holder"));
                }
                seenToken = current;
                seen = lease;
                token = current;
                holder = field(lease, "holder");
                leaseNanos = System.nanoTime();
            }
            boolean released = lease.contains("state=released");
            Duration unchanged = Duration.ofNanos(System.nanoTime() - leaseNanos);
            if (released || unchanged.compareTo(settings.lease()) >= 0) {
                if (dir.tryTake(current + 1, id)) {
                    LOG.warn("standby {}: {} token {} ({}); taking over with token {}", id, released
                            ? "the active supervisor released" : "no renewal for " + unchanged.toMillis()
                            + " ms of", current, holder, current + 1);
                    return Optional.of(new LocalJournalFiles(becomeActive(current + 1, holder,
                            released ? Duration.ZERO : unchanged)));
                }
                continue; // someone else took it: watch the new holder
            }
            stopping.await(poll, TimeUnit.MILLISECONDS);
        }
        return Optional.empty();
    }

    private Path becomeActive(long taken, String previous, Duration waited) throws IOException {
        long t0 = System.nanoTime();
        tookTokenNanos = t0;
        token = taken;
        holder = id;
        Path generation = dir.generation(taken);
        Files.createDirectories(generation);
        renew();
        startRenewing(this::renewQuietly);
        Path source = dir.handOverSource(taken);
        JournalHandOver.Copied copied = JournalHandOver.copy(source, generation);
        Duration handOver = Duration.ofNanos(System.nanoTime() - t0);
        String record = "token=" + taken + "\nholder=" + id + "\nprevious=" + previous + "\nsource=" + source
                + "\nsourceJournalBytes=" + copied.journalBytes() + "\nsourceTornBytes=" + copied.tornBytes()
                + "\ncheckpointBytes=" + copied.checkpointBytes() + "\nat=" + Instant.now() + "\n";
        Files.writeString(generation.resolve(SharedJournalDir.HANDOVER), record, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
        SharedJournalDir.forceDirectory(generation);
        dir.prune(taken);
        if (taken > 1) {
            takeovers.inc();
        }
        takeover = new Takeover(taken, previous, waited, handOver, copied);
        LOG.info("supervisor {} holds token {}: journal of {} handed over at byte {} ({} torn bytes left behind,"
                + " checkpoint {} bytes) in {} ms", id, taken, source, copied.journalBytes(), copied.tornBytes(),
                copied.checkpointBytes(), handOver.toMillis());
        return generation;
    }

    /**
     * Throws when this supervisor may no longer act: fenced out (another took the next token), or not holding the
     * lease at all. Cheap (one file-existence check) and called on every journal write, acknowledgement and signal.
     */
    @Override
    public void check() throws FencedException {
        Role r = role;
        if (r == Role.FENCED) {
            throw new FencedException("supervisor " + id + " was fenced out of token " + token);
        }
        // a standby holding the token is taking over (replaying, re-planning): it may journal already
        if (r == Role.STANDBY && holder.equals(id) || r == Role.ACTIVE || r == Role.RELEASED) {
            if (dir.fencedOut(token)) {
                fenced("another supervisor took token " + (token + 1) + " in " + dir.root());
                throw new FencedException("supervisor " + id + " was fenced out of token " + token);
            }
            return;
        }
        throw new FencedException("supervisor " + id + " does not hold the lease (" + r + ")");
    }

    /** On a clean stop, after the journal is closed: the standby may take over at once. */
    @Override
    public void release() {
        stopRenewing();
        if ((role == Role.ACTIVE || holder.equals(id)) && role != Role.FENCED && !dir.fencedOut(token)) {
            try {
                dir.writeLease(token, leaseText("released"));
                role = Role.RELEASED;
                LOG.info("supervisor {} released token {}: the standby takes over at once", id, token);
            } catch (IOException e) {
                LOG.warn("supervisor {}: the lease of token {} could not be released ({}); the standby takes over"
                        + " when it expires", id, token, e.toString());
            }
        }
    }

    /** Why a standby is not ready (it consumes nothing), for /ready. */
    @Override
    public String standbyReason() {
        return "standby " + id + ": " + (token == 0 ? "no supervisor holds the lease yet" : "supervisor "
                + (holder.isEmpty() ? "?" : holder) + " is active with token " + token + ", lease renewed "
                + String.format(java.util.Locale.ROOT, "%.1f", leaseAgeSeconds()) + " s ago");
    }

    @Override
    String journalLocation() {
        return dir.root().toString();
    }

    @Override
    double leaseAgeSeconds() {
        return (System.nanoTime() - leaseNanos) / 1e9;
    }

    private void renewQuietly() {
        try {
            if (dir.fencedOut(token)) {
                fenced("another supervisor took token " + (token + 1) + " (seen while renewing)");
                return;
            }
            renew();
        } catch (IOException | RuntimeException e) {
            LOG.warn("supervisor {}: lease of token {} not renewed ({}); the standby takes over after {} without"
                    + " one", id, token, e.toString(), settings.lease());
        }
    }

    private void renew() throws IOException {
        long n = renewals.incrementAndGet();
        dir.writeLease(token, leaseText("active") + "renewal=" + n + "\n");
        leaseNanos = System.nanoTime();
    }

    private String leaseText(String state) {
        return "holder=" + id + "\ntoken=" + token + "\nstate=" + state + "\n";
    }
}
