package org.eventindex.cluster;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process's Kerberos login from a keytab, through Hadoop's {@link UserGroupInformation} (it becomes the login
 * user, so that Hadoop's RPC client re-logs in with it too), and its renewal: a background thread calls
 * {@link UserGroupInformation#checkTGTAndReloginFromKeytab()} every tenth of the ticket's lifetime (between 1 s and
 * 60 s), which logs in again once 80% of the lifetime has passed. The new tickets go into the same {@link Subject},
 * which is what the Kudu client, built inside {@link Subject#doAs}, reads on its next connection.
 * <p>
 * Metrics: {@value #LOGIN_FAILURES} counts failed renewals (a failed first login stops the process instead, exit code
 * 2); {@value #TICKET_END} is the end time of the current ticket-granting ticket.
 */
public final class KerberosLogin implements AutoCloseable {
    public static final String LOGIN_FAILURES = "eventindex_kerberos_login_failures_total";
    public static final String TICKET_END = "eventindex_kerberos_ticket_end_timestamp_seconds";
    private static final Logger LOG = LoggerFactory.getLogger(KerberosLogin.class);
    private static final Duration MIN_CHECK = Duration.ofSeconds(1);
    private static final Duration MAX_CHECK = Duration.ofSeconds(60);

    private final String principal;
    private final Path keytab;
    private final UserGroupInformation ugi;
    private final Subject subject;
    private final AtomicLong failures;
    private final ScheduledExecutorService renewer;
    private volatile Instant lastRenewal;

    private KerberosLogin(String principal, Path keytab, UserGroupInformation ugi, AtomicLong failures) {
        this.principal = principal;
        this.keytab = keytab;
        this.ugi = ugi;
        this.subject = subjectOf(ugi);
        this.failures = failures;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kerberos-renewal");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Logs in as {@code settings.principal()} from {@code settings.keytab()} and starts the renewal.
     *
     * @param conf the Hadoop configuration (from the configuration folder); Kerberos authentication is switched on in
     *             a copy of it
     * @throws ClusterConfigException naming the principal and the keytab when the keytab is missing or unreadable or
     *                                the KDC refuses the login (e.g. the principal is not in the keytab)
     */
    public static KerberosLogin login(ClusterSettings settings, Configuration conf) {
        if (!settings.kerberos()) {
            throw new IllegalArgumentException("no Kerberos principal in " + settings);
        }
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
        Configuration secure = new Configuration(conf);
        secure.set("hadoop.security.authentication", "kerberos");
        UserGroupInformation ugi;
        try {
            UserGroupInformation.setConfiguration(secure);
            UserGroupInformation.loginUserFromKeytab(principal, keytab.toString());
            ugi = UserGroupInformation.getLoginUser();
        } catch (IOException | RuntimeException e) {
            throw new ClusterConfigException(who + reason(e), e);
        }
        KerberosLogin login = new KerberosLogin(principal, keytab, ugi, new AtomicLong());
        LOG.info("logged in to Kerberos as {} from keytab {}; the ticket ends at {}", principal, keytab,
                login.ticketEnd().map(Instant::toString).orElse("(unknown)"));
        login.scheduleCheck();
        return login;
    }

    /**
     * Registers {@value #LOGIN_FAILURES} (renewals that failed; a failed first login stops the process with exit code
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
                || r.contains("receive timed out") || r.contains("cannot locate kdc")) {
            return "no KDC of the realm answered (check krb5.conf: /etc/krb5.conf or -Djava.security.krb5.conf)";
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

    /** When the current ticket-granting ticket ends, if the subject holds one. */
    public Optional<Instant> ticketEnd() {
        return tgt().map(t -> t.getEndTime().toInstant());
    }

    /** When the last renewal that got a new ticket happened, if one did. */
    public Optional<Instant> lastRenewal() {
        return Optional.ofNullable(lastRenewal);
    }

    /**
     * Logs in again from the keytab if the ticket is past 80% of its lifetime (Hadoop's rule); the background thread
     * calls this. A failure is logged and counted, and tried again at the next check.
     *
     * @return whether a new ticket was obtained
     */
    public boolean checkAndRenew() {
        Optional<Instant> before = ticketEnd();
        try {
            ugi.checkTGTAndReloginFromKeytab();
        } catch (IOException | RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("Kerberos renewal of principal {} from keytab {} failed (the ticket ends at {}; trying again):"
                    + " {}", principal, keytab, before.map(Instant::toString).orElse("(none)"), reason(e), e);
            return false;
        }
        Optional<Instant> after = ticketEnd();
        if (!after.equals(before)) {
            lastRenewal = Instant.now();
            LOG.info("Kerberos login of {} renewed from keytab {}; the ticket now ends at {}", principal, keytab,
                    after.map(Instant::toString).orElse("(unknown)"));
            return true;
        }
        return false;
    }

    private void scheduleCheck() {
        try {
            renewer.schedule(() -> {
                checkAndRenew();
                scheduleCheck();
            }, checkInterval().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("Kerberos renewal of {} stopped", principal);
        }
    }

    /** A tenth of the ticket's lifetime, between 1 s and 60 s; 10 s when the subject holds no ticket. */
    Duration checkInterval() {
        return tgt().map(t -> Duration.between(t.getStartTime().toInstant(), t.getEndTime().toInstant())
                        .dividedBy(10))
                .map(d -> d.compareTo(MIN_CHECK) < 0 ? MIN_CHECK : d.compareTo(MAX_CHECK) > 0 ? MAX_CHECK : d)
                .orElse(Duration.ofSeconds(10));
    }

    private Optional<KerberosTicket> tgt() {
        synchronized (subject.getPrivateCredentials()) {
            return subject.getPrivateCredentials(KerberosTicket.class).stream()
                    .filter(t -> t.getServer().getName().startsWith("krbtgt/"))
                    .reduce((a, b) -> a.getEndTime().after(b.getEndTime()) ? a : b);
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
