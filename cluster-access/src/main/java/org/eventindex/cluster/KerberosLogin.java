package org.eventindex.cluster;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.SecretFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process's Kerberos login from a keytab, through Hadoop's {@link UserGroupInformation} (it becomes the login
 * user, so that Hadoop's RPC client re-logs in with it too), and its renewal.
 * <p>
 * Renewal is decided here, against a {@link Clock} (the system clock in the daemons): once the clock has passed 80%
 * of the ticket-granting ticket's lifetime (from its start time to its end time), {@link #checkAndRenew()} logs in
 * again from the keytab with {@link UserGroupInformation#forceReloginFromKeytab()}. Hadoop's own
 * {@link UserGroupInformation#reloginFromKeytab()} would also skip a login less than
 * {@code hadoop.kerberos.min.seconds.before.relogin} after the previous one, by its own clock; this class paces its
 * attempts itself: after a failure, the next attempt comes a tenth of the ticket's lifetime later (between 1 s and
 * 60 s). A background thread ({@code kerberos-renewal}) runs the check every second; a check before the renewal point
 * only compares two instants. The new tickets go into the same {@link Subject}, which is what the Kudu client, built
 * inside {@link Subject#doAs}, reads on its next negotiation.
 * <p>
 * Metrics: {@value #LOGIN_FAILURES} counts failed renewals (a first login the KDC refuses stops the process instead,
 * exit code 2; one no KDC answered is waited for by the daemon); {@value #TICKET_END} is the end time of the current ticket-granting ticket.
 */
public final class KerberosLogin implements AutoCloseable {
    public static final String LOGIN_FAILURES = "eventindex_kerberos_login_failures_total";
    public static final String TICKET_END = "eventindex_kerberos_ticket_end_timestamp_seconds";
    /** How often the background thread compares the clock with the renewal point. */
    static final Duration CHECK_EVERY = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(KerberosLogin.class);
    private static final Duration MIN_RETRY = Duration.ofSeconds(1);
    private static final Duration MAX_RETRY = Duration.ofSeconds(60);

    private final String principal;
    private final Path keytab;
    private final UserGroupInformation ugi;
    private final Subject subject;
    private final Clock clock;
    private final AtomicLong failures = new AtomicLong();
    private final ScheduledExecutorService renewer;
    private volatile Instant lastRenewal;
    // guarded by this: the earliest next attempt after a failure, and the lifetime of the last ticket seen
    private Instant retryAt;
    private Duration lifetime;

    private KerberosLogin(String principal, Path keytab, UserGroupInformation ugi, Clock clock) {
        this.principal = principal;
        this.keytab = keytab;
        this.ugi = ugi;
        this.subject = subjectOf(ugi);
        this.clock = clock;
        this.lifetime = ticket().map(KerberosLogin::lifetime).orElse(Duration.ofMinutes(10));
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kerberos-renewal");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Logs in as {@code settings.principal()} from {@code settings.keytab()} and starts the renewal, decided against
     * the system clock.
     *
     * @param conf the Hadoop configuration (from the configuration folder); Kerberos authentication is switched on in
     *             a copy of it
     * @throws ClusterConfigException naming the principal and the keytab when the keytab is missing or unreadable,
     *                                readable by group or others (its mode and {@code chmod 600}), or
     *                                the KDC refuses the login (e.g. the principal is not in the keytab)
     * @throws KdcUnreachableException naming them when no KDC of the realm answered ({@link #kdcUnreachable})
     */
    public static KerberosLogin login(ClusterSettings settings, Configuration conf) {
        return login(settings, conf, Clock.systemUTC());
    }

    /**
     * {@link #login(ClusterSettings, Configuration)} with the renewal decided against {@code clock} (tests move it
     * past the renewal point instead of waiting for it).
     */
    public static KerberosLogin login(ClusterSettings settings, Configuration conf, Clock clock) {
        if (!settings.kerberos()) {
            throw new IllegalArgumentException("no Kerberos principal in " + settings);
        }
        Objects.requireNonNull(clock, "clock is null");
        String principal = settings.principal();
        Path keytab = settings.keytab();
        String who = "Kerberos login of principal " + principal + " (" + settings.names().principal()
                + ") with keytab " + keytab + " (" + settings.names().keytab() + ") failed: ";
        if (!Files.exists(keytab)) {
            throw new ClusterConfigException(who + "the keytab does not exist");
        }
        if (!Files.isRegularFile(keytab) || !Files.isReadable(keytab)) {
            throw new ClusterConfigException(who + "the keytab is not a readable file for this user");
        }
        try {
            // A keytab is a password: owner-only like the secret files (a group-readable one may have leaked).
            SecretFile.requireOwnerOnly(keytab, settings.names().keytab(), "keytab");
        } catch (IOException | IllegalArgumentException e) {
            throw new ClusterConfigException(who + e.getMessage(), e);
        }
        Configuration secure = new Configuration(conf);
        secure.set("hadoop.security.authentication", "kerberos");
        UserGroupInformation ugi;
        try {
            UserGroupInformation.setConfiguration(secure);
            UserGroupInformation.loginUserFromKeytab(principal, keytab.toString());
            ugi = UserGroupInformation.getLoginUser();
        } catch (IOException | RuntimeException e) {
            if (kdcUnreachable(e)) {
                throw new KdcUnreachableException(who + reason(e), e);
            }
            throw new ClusterConfigException(who + reason(e), e);
        }
        KerberosLogin login = new KerberosLogin(principal, keytab, ugi, clock);
        LOG.info("logged in to Kerberos as {} from keytab {}; the ticket ends at {}, renewed from {}", principal,
                keytab, login.ticketEnd().map(Instant::toString).orElse("(unknown)"),
                login.renewalTime().map(Instant::toString).orElse("(unknown)"));
        login.startRenewal();
        return login;
    }

    /**
     * Registers {@value #LOGIN_FAILURES} (renewals that failed; a refused first login stops the process with exit code
     * 2 instead) and {@value #TICKET_END} in a daemon's registry.
     */
    public void register(PrometheusRegistry registry) {
        CounterWithCallback.builder().name(LOGIN_FAILURES)
                .help("Kerberos renewals (logins from the keytab) that failed; the next check tries again.")
                .callback(cb -> cb.call(failures.get())).register(registry);
        GaugeWithCallback.builder().name(TICKET_END).help("End of the Kerberos ticket-granting ticket in use, in"
                + " seconds since the epoch (0 when none); renewed at 80% of its lifetime.")
                .callback(cb -> cb.call(ticketEnd().map(i -> i.toEpochMilli() / 1000.0).orElse(0.0)))
                .register(registry);
    }

    /** Renewals that failed so far. */
    public long failures() {
        return failures.get();
    }

    /** The causes' messages, outermost first. */
    private static List<String> messages(Throwable e) {
        List<String> seen = new ArrayList<>();
        for (Throwable t = e; t != null && seen.size() < 16; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                seen.add(t.getMessage());
            }
        }
        return seen;
    }

    /**
     * Java's Kerberos messages, which name neither side, with what they mean for an operator: the first cause whose
     * message is a known one, else the innermost message.
     */
    static String reason(Throwable e) {
        List<String> all = messages(e);
        for (String m : all) {
            String meaning = meaning(m.toLowerCase(java.util.Locale.ROOT));
            if (meaning != null) {
                return meaning + " (" + m + ")";
            }
        }
        return all.isEmpty() ? e.toString() : all.get(all.size() - 1);
    }

    /**
     * Whether a failed login failed because no KDC answered: a refused or timed-out connection, no route, an unknown
     * KDC host (DNS down), or Java's summary of those ("Cannot contact any KDC for realm"). Everything else the KDC or
     * the JDK says (an unknown principal, a refused key, a keytab without the principal's key, a krb5.conf without the
     * realm or its KDCs: "Cannot locate KDC", "Cannot locate default realm") is the configuration's.
     */
    public static boolean kdcUnreachable(Throwable e) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 16; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (t instanceof java.net.ConnectException || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.NoRouteToHostException || t instanceof java.net.UnknownHostException
                    || t instanceof java.net.PortUnreachableException) {
                return true;
            }
            String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(java.util.Locale.ROOT);
            if (m.contains("cannot contact any kdc") || m.contains("receive timed out")
                    || m.contains("connection refused") || m.contains("connect timed out")
                    || m.contains("no route to host") || m.contains("network is unreachable")) {
                return true;
            }
        }
        return false;
    }

    private static String meaning(String r) {
        if (r.contains("unable to obtain password")) {
            return "the keytab holds no key of this principal (check the principal's spelling and realm with"
                    + " 'klist -kt KEYTAB')";
        } else if (r.contains("checksum failed") || r.contains("pre-authentication") || r.contains("integrity check")) {
            return "the KDC refused the keytab's key: the principal's key changed since the keytab was written"
                    + " (compare the key version numbers of 'klist -kt KEYTAB' and 'kvno PRINCIPAL')";
        } else if (r.contains("not found in kerberos database")) {
            return "the KDC does not know this principal";
        } else if (r.contains("cannot contact any kdc") || r.contains("connection refused")
                || r.contains("receive timed out") || r.contains("connect timed out")) {
            return "no KDC of the realm answered (is it running? its address comes from krb5.conf: /etc/krb5.conf"
                    + " or -Djava.security.krb5.conf)";
        } else if (r.contains("cannot locate kdc") || r.contains("cannot locate default realm")) {
            return "krb5.conf names no KDC of the realm, or no default realm (/etc/krb5.conf or"
                    + " -Djava.security.krb5.conf)";
        } else if (r.contains("clock skew")) {
            return "this host's clock differs too much from the KDC's";
        }
        return null;
    }

    /** The logged-in user: {@link UserGroupInformation#doAs} runs code as it. */
    public UserGroupInformation ugi() {
        return ugi;
    }

    /** The subject holding the tickets; renewal replaces them in this same subject. */
    public Subject subject() {
        return subject;
    }

    public String principal() {
        return principal;
    }

    /** The ticket-granting ticket in use, if the subject holds one (a renewal puts a new one in its place). */
    public Optional<KerberosTicket> ticket() {
        synchronized (subject.getPrivateCredentials()) {
            return subject.getPrivateCredentials(KerberosTicket.class).stream()
                    .filter(t -> !t.isDestroyed() && t.getServer() != null
                            && t.getServer().getName().startsWith("krbtgt/"))
                    .reduce((a, b) -> a.getEndTime().after(b.getEndTime()) ? a : b);
        }
    }

    /** When the current ticket-granting ticket ends, if the subject holds one. */
    public Optional<Instant> ticketEnd() {
        return ticket().map(t -> t.getEndTime().toInstant());
    }

    /** When the current ticket is due for renewal (80% of its lifetime), if the subject holds one. */
    public Optional<Instant> renewalTime() {
        return ticket().map(KerberosLogin::renewalTime);
    }

    /** When the last renewal that got a new ticket happened (by the login's clock), if one did. */
    public Optional<Instant> lastRenewal() {
        return Optional.ofNullable(lastRenewal);
    }

    /** The renewal point of a ticket: its start plus 80% of its lifetime (Hadoop's rule for its own renewals). */
    static Instant renewalTime(Instant start, Instant end) {
        return start.plus(Duration.between(start, end).multipliedBy(4).dividedBy(5));
    }

    private static Instant renewalTime(KerberosTicket t) {
        return renewalTime(start(t), t.getEndTime().toInstant());
    }

    private static Instant start(KerberosTicket t) {
        // the start time is optional in a ticket; without it the ticket is valid from its authentication time
        return (t.getStartTime() != null ? t.getStartTime() : t.getAuthTime()).toInstant();
    }

    private static Duration lifetime(KerberosTicket t) {
        return Duration.between(start(t), t.getEndTime().toInstant());
    }

    /** The pause after a failed renewal: a tenth of the ticket's lifetime, between 1 s and 60 s. */
    static Duration retryPause(Duration lifetime) {
        Duration tenth = lifetime.dividedBy(10);
        return tenth.compareTo(MIN_RETRY) < 0 ? MIN_RETRY : tenth.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : tenth;
    }

    /**
     * Logs in again from the keytab when the clock has passed the ticket's renewal point (or the subject holds no
     * ticket), unless the last attempt failed less than the retry pause ago; the background thread calls this every
     * second. A failure is logged at WARN, counted in {@value #LOGIN_FAILURES} and tried again after the pause.
     *
     * @return whether a new ticket was obtained
     */
    public synchronized boolean checkAndRenew() {
        Instant now = clock.instant();
        Optional<KerberosTicket> before = ticket();
        before.ifPresent(t -> lifetime = lifetime(t));
        if (before.isPresent() && now.isBefore(renewalTime(before.get()))) {
            return false;
        }
        if (retryAt != null && now.isBefore(retryAt)) {
            return false;
        }
        String ended = before.map(t -> t.getEndTime().toInstant().toString()).orElse("(none)");
        try {
            ugi.forceReloginFromKeytab();
        } catch (IOException | RuntimeException e) {
            failed(now);
            LOG.warn("Kerberos renewal of principal {} from keytab {} failed (the ticket ends at {}; trying again"
                    + " in {} s): {}", principal, keytab, ended, retryPause(lifetime).toSeconds(), reason(e), e);
            return false;
        }
        Optional<KerberosTicket> after = ticket();
        if (after.isEmpty() || after.get() == before.orElse(null)) {
            // forceReloginFromKeytab returns without a login when the user is not a keytab login of Hadoop's
            failed(now);
            LOG.warn("Kerberos renewal of principal {} from keytab {} got no new ticket (the ticket ends at {};"
                    + " trying again in {} s)", principal, keytab, ended, retryPause(lifetime).toSeconds());
            return false;
        }
        retryAt = null;
        lastRenewal = now;
        LOG.info("Kerberos login of {} renewed from keytab {}; the ticket now ends at {}", principal, keytab,
                after.get().getEndTime().toInstant());
        return true;
    }

    private void failed(Instant now) {
        failures.incrementAndGet();
        retryAt = now.plus(retryPause(lifetime));
    }

    private void startRenewal() {
        try {
            renewer.scheduleWithFixedDelay(() -> {
                try {
                    checkAndRenew();
                } catch (RuntimeException e) {
                    // a failed check must not end the periodic task
                    LOG.warn("Kerberos renewal check of {} failed: {}", principal, e.toString(), e);
                }
            }, CHECK_EVERY.toMillis(), CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Kerberos renewal of {} stopped", principal);
        }
    }

    @SuppressWarnings("removal")
    private static Subject subjectOf(UserGroupInformation ugi) {
        Subject s = ugi.doAs((PrivilegedAction<Subject>) () -> {
            AccessControlContext context = AccessController.getContext();
            return Subject.getSubject(context);
        });
        return Objects.requireNonNull(s, "the logged-in user has no subject");
    }

    /** Stops the renewal; the login stays valid until its ticket ends. */
    @Override
    public void close() {
        renewer.shutdownNow();
    }
}
