package org.eventindex.supervisor.ha;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
public final class SharedDirLeadership implements Leadership {
    private static final Logger LOG = LoggerFactory.getLogger(SharedDirLeadership.class);

    private final SupervisorConfig.Ha settings;
    private final SharedJournalDir dir;
    private final String id;
    private final Consumer<String> onFenced;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final AtomicBoolean fenceReported = new AtomicBoolean();
    private final AtomicLong renewals = new AtomicLong();
    private final Counter takeovers;
    private volatile Role role = Role.STANDBY;
    private volatile long token;
    private volatile String holder = "";
    /** Standby: when the holder's lease last changed as seen here. Active: the last successful renewal. */
    private volatile long leaseNanos = System.nanoTime();
    private volatile Takeover takeover;
    private volatile Instant activeSince;
    private volatile ScheduledExecutorService renewer;
    private volatile long tookTokenNanos;

    /**
     * @param root     the shared journal directory ({@code supervisor.journal.dir})
     * @param id       this supervisor's name in the lease
     * @param onFenced called once, with the reason, when this supervisor finds itself fenced out
     */
    public SharedDirLeadership(SupervisorConfig.Ha settings, Path root, String id, PrometheusRegistry registry,
                               Consumer<String> onFenced) {
        this.settings = Objects.requireNonNull(settings, "settings is null");
        this.dir = new SharedJournalDir(root);
        this.id = Objects.requireNonNull(id, "id is null");
        this.onFenced = Objects.requireNonNull(onFenced, "onFenced is null");
        takeovers = Leadership.registerMetrics(registry, this, this::leaseAgeSeconds, () -> takeover);
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
        while (stopping.getCount() > 0) {
            long current;
            String lease;
            try {
                current = dir.currentToken();
                lease = current == 0 ? "" : dir.lease(current).orElse("");
            } catch (IOException e) {
                // no reason to stop standing by: once the directory answers again, a lease unchanged since the last
                // look is taken over (the fence keeps the old holder out, whatever it did meanwhile)
                LOG.warn("standby {}: cannot read {} ({}); trying again", id, dir.root(), e.toString());
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
                            lease.isEmpty() ? "no lease written yet" : holderOf(lease));
                }
                seenToken = current;
                seen = lease;
                token = current;
                holder = holderOf(lease);
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
        ScheduledExecutorService r = Executors.newSingleThreadScheduledExecutor(t -> {
            Thread th = new Thread(t, "supervisor-lease");
            th.setDaemon(true);
            return th;
        });
        renewer = r;
        long every = settings.renew().toMillis();
        r.scheduleWithFixedDelay(this::renewQuietly, every, every, TimeUnit.MILLISECONDS);
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

    /** Called by the supervisor once it consumes: the takeover is over. */
    @Override
    public void activated() {
        if (role == Role.STANDBY) {
            role = Role.ACTIVE;
            activeSince = Instant.now();
            Takeover t = takeover;
            if (t != null) {
                // from the token to consuming: the copy, the replay, the re-planning
                t = new Takeover(t.token(), t.previous(), t.waited(),
                        Duration.ofNanos(System.nanoTime() - tookTokenNanos), t.copied());
                takeover = t;
                LOG.info("supervisor {} active with token {}{}", id, t.token(), t.previous().isEmpty() ? ""
                        : " after taking over from " + t.previous() + " (lease expired after "
                        + t.waited().toMillis() + " ms, hand-over " + t.handOver().toMillis() + " ms)");
            }
        }
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
        ScheduledExecutorService r = renewer;
        if (r != null) {
            r.shutdownNow();
        }
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

    /** A standby stops waiting ({@link #awaitActive} returns empty); an active goes on renewing until released. */
    @Override
    public void stopWaiting() {
        stopping.countDown();
    }

    /** Stops waiting and renewing (without releasing). */
    @Override
    public void close() {
        stopping.countDown();
        ScheduledExecutorService r = renewer;
        if (r != null) {
            r.shutdownNow();
        }
    }

    @Override
    public Role role() {
        return role;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public String id() {
        return id;
    }

    /** What /ready, /supervisor and the console say about the role. */
    @Override
    public Map<String, Object> info() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role.name().toLowerCase(java.util.Locale.ROOT));
        m.put("id", id);
        m.put("token", token);
        m.put("activeHolder", holder);
        m.put("leaseAgeSeconds", leaseAgeSeconds());
        m.put("leaseSeconds", settings.lease().toMillis() / 1000.0);
        m.put("journalDir", dir.root().toString());
        Takeover t = takeover;
        if (t != null) {
            m.put("takeover", Map.of("token", t.token(), "previous", t.previous(), "waitedMillis",
                    t.waited().toMillis(), "handOverMillis", t.handOver().toMillis(), "takeoverPointBytes",
                    t.copied().journalBytes(), "activeSince", String.valueOf(activeSince)));
        }
        return m;
    }

    /** Why a standby is not ready (it consumes nothing), for /ready. */
    @Override
    public String standbyReason() {
        return "standby " + id + ": " + (token == 0 ? "no supervisor holds the lease yet" : "supervisor "
                + (holder.isEmpty() ? "?" : holder) + " is active with token " + token + ", lease renewed "
                + String.format(java.util.Locale.ROOT, "%.1f", leaseAgeSeconds()) + " s ago");
    }

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

    private static String holderOf(String lease) {
        for (String line : lease.split("\n")) {
            if (line.startsWith("holder=")) {
                return line.substring("holder=".length());
            }
        }
        return "";
    }

    private void fenced(String why) {
        role = Role.FENCED;
        ScheduledExecutorService r = renewer;
        if (r != null) {
            r.shutdownNow();
        }
        if (fenceReported.compareAndSet(false, true)) {
            LOG.error("supervisor {} is fenced out: {}; it journals, signals and acknowledges nothing more and"
                    + " stops (started again it is a standby)", id, why);
            onFenced.accept(why);
        }
    }
}
