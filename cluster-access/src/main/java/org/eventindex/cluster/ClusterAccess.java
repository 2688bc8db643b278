package org.eventindex.cluster;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;

import javax.security.auth.Subject;
import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.URI;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * The one way the daemons and tools reach HDFS and Kudu: the site's Hadoop configuration (from its folder), the
 * Kerberos login (when a principal is configured) and the clients made as the logged-in user. HDFS clients are made
 * inside {@link UserGroupInformation#doAs}; Kudu clients are built inside {@link Subject#doAs} of the login's subject,
 * which the Kudu client keeps and re-reads when it negotiates a connection, so the renewed tickets reach it without a
 * new client. The login's renewal is decided against the system clock, or the {@link Clock} given to {@link #open(
 * ClusterSettings, Configuration, PrometheusRegistry, Clock)} (tests).
 */
public final class ClusterAccess implements AutoCloseable {
    private static final Duration RETRY_PAUSE = Duration.ofMillis(200);
    private final ClusterSettings settings;
    private final Configuration conf;
    private final KerberosLogin login;

    private ClusterAccess(ClusterSettings settings, Configuration conf, KerberosLogin login) {
        this.settings = settings;
        this.conf = conf;
        this.login = login;
    }

    /**
     * Loads the Hadoop configuration folder and logs in to Kerberos when {@code settings} names a principal.
     *
     * @param registry the daemon's metrics (the Kerberos login's go there), or null; see also {@link #register}
     * @throws ClusterConfigException for a missing folder or file, or a login the KDC or keytab refuses
     * @throws KdcUnreachableException when no KDC answered the login (the daemons wait and try again)
     */
    public static ClusterAccess open(ClusterSettings settings, PrometheusRegistry registry) {
        Objects.requireNonNull(settings, "settings is null");
        return open(settings, HadoopConfDir.load(settings), registry);
    }

    /** With a Hadoop configuration made by the caller (e.g. a MiniDFSCluster's), and the login of {@code settings}. */
    public static ClusterAccess open(ClusterSettings settings, Configuration conf, PrometheusRegistry registry) {
        return open(settings, conf, registry, Clock.systemUTC());
    }

    /**
     * {@link #open(ClusterSettings, Configuration, PrometheusRegistry)} with the Kerberos renewal decided against
     * {@code clock} instead of the system clock (tests move it past the renewal point).
     */
    public static ClusterAccess open(ClusterSettings settings, Configuration conf, PrometheusRegistry registry,
                                     Clock clock) {
        Objects.requireNonNull(settings, "settings is null");
        Objects.requireNonNull(conf, "conf is null");
        Objects.requireNonNull(clock, "clock is null");
        KerberosLogin login = settings.kerberos() ? KerberosLogin.login(settings, conf, clock) : null;
        if (login == null && "kerberos".equalsIgnoreCase(conf.getTrimmed("hadoop.security.authentication"))) {
            // a Kerberized site without a principal here: Hadoop takes the user's ticket cache (kinit), as do the
            // Kudu clients; Hadoop must see the folder's setting, not only the class path's core-site.xml
            UserGroupInformation.setConfiguration(conf);
        }
        if (login != null && registry != null) {
            login.register(registry);
        }
        return new ClusterAccess(settings, conf, login);
    }

    /** No Kerberos, and {@code conf} as the Hadoop configuration (tests against embedded clusters). */
    public static ClusterAccess unsecured(Configuration conf) {
        return open(ClusterSettings.defaults(), conf, null);
    }

    /** Registers the Kerberos login's metrics (when there is a login) in a daemon's registry. */
    public void register(PrometheusRegistry registry) {
        if (login != null) {
            login.register(registry);
        }
    }

    /** A copy of the Hadoop configuration (the folder's, over Hadoop's defaults). */
    public Configuration configuration() {
        return new Configuration(conf);
    }

    public ClusterSettings settings() {
        return settings;
    }

    /** The Kerberos login, when there is one. */
    public Optional<KerberosLogin> login() {
        return Optional.ofNullable(login);
    }

    /** A new HDFS client of {@code uri} (the caller closes it), with {@link #configuration()}. */
    public FileSystem fileSystem(URI uri) throws IOException {
        return fileSystem(uri, conf);
    }

    /** A new HDFS client of {@code uri} with {@code hadoopConf} (e.g. {@link #configuration()} with settings added). */
    public FileSystem fileSystem(URI uri, Configuration hadoopConf) throws IOException {
        Objects.requireNonNull(uri, "uri is null");
        return hdfsCall(uri, () -> FileSystem.newInstance(uri, hadoopConf));
    }

    /** A {@link FileContext} of {@code uri} with {@code hadoopConf}, as the logged-in user. */
    public FileContext fileContext(URI uri, Configuration hadoopConf) throws IOException {
        Objects.requireNonNull(uri, "uri is null");
        return hdfsCall(uri, () -> FileContext.getFileContext(uri, hadoopConf));
    }

    /** Runs an HDFS call as the logged-in user, its failures made readable by {@link ClusterErrors#hdfs}. */
    public <T> T hdfsCall(URI uri, PrivilegedExceptionAction<T> call) throws IOException {
        try {
            return asUser(call);
        } catch (IOException | RuntimeException e) {
            throw ClusterErrors.hdfs(uri, conf, settings, e);
        }
    }

    /** Runs {@code call} as the logged-in user (directly when there is no login). */
    public <T> T asUser(PrivilegedExceptionAction<T> call) throws IOException {
        try {
            if (login == null) {
                return call.run();
            }
            return login.ugi().doAs(call);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (Exception e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** A Kudu client of {@code masters} built as the logged-in subject; the caller closes it. */
    public KuduClient kuduClient(String masters) {
        return kuduClient(masters, UnaryOperator.identity());
    }

    /**
     * A Kudu client of {@code masters} built as the logged-in subject, with the caller's builder settings (timeouts,
     * ...); the caller closes it.
     */
    public KuduClient kuduClient(String masters, UnaryOperator<KuduClient.KuduClientBuilder> settings) {
        Objects.requireNonNull(masters, "masters is null");
        KuduClient.KuduClientBuilder builder = settings.apply(new KuduClient.KuduClientBuilder(masters));
        if (login == null) {
            return builder.build();
        }
        try {
            return Subject.doAs(login.subject(), (PrivilegedExceptionAction<KuduClient>) builder::build);
        } catch (PrivilegedActionException e) {
            throw new UndeclaredThrowableException(e.getCause(), "building the Kudu client failed");
        }
    }

    /**
     * A Kudu client of {@code masters} that has answered, its admin operations' timeout {@code timeout}: asks the
     * masters for the tablet servers until they answer or {@code timeout} has passed (the Kudu client gives up a call
     * early when its next retry would not fit).
     *
     * @throws IOException "Kudu masters H:P,... unreachable after N s (reason)" when they do not answer
     */
    public KuduClient connectedKuduClient(String masters, Duration timeout) throws IOException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        KuduException last = null;
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                // the pacing below would not wait any more: a stopping caller ends the attempts here
                throw new java.io.InterruptedIOException("interrupted while waiting for the Kudu masters " + masters);
            }
            long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) {
                if (last == null || !ClusterErrors.saysWhy(last)) {
                    // the Kudu client's timeout may summarise its attempts without their errors: ask the ports
                    Optional<String> refused = ClusterErrors.refusedByEveryMaster(masters);
                    if (refused.isPresent()) {
                        throw new ClusterErrors.Readable("Kudu masters " + masters + " unreachable after "
                                + Math.max(1, Math.round(timeout.toMillis() / 1000.0)) + " s (" + refused.get() + ")",
                                last);
                    }
                }
                throw last != null ? ClusterErrors.kudu(masters, timeout, last)
                        : new ClusterErrors.Readable("Kudu masters " + masters + " unreachable after "
                        + Math.max(1, timeout.toSeconds()) + " s (no answer)");
            }
            // a client per attempt, each with the time left, so that no attempt outlives the deadline
            KuduClient probe = kuduClient(masters, b -> b.defaultAdminOperationTimeoutMs(leftMs));
            try {
                probe.listTabletServers();
                return probe;
            } catch (KuduException e) {
                closeQuietly(probe);
                if (!ClusterErrors.unreachable(e)) {
                    throw ClusterErrors.kudu(masters, Duration.ofNanos(System.nanoTime() - start), e);
                }
                // a short last attempt may end before any connection was tried: keep the reason an earlier one gave
                if (last == null || ClusterErrors.saysWhy(e) || !ClusterErrors.saysWhy(last)) {
                    last = e;
                }
                // pacing between attempts, the Kudu client has its own backoff within each
                LockSupport.parkNanos(Math.min(Math.max(0, deadline - System.nanoTime()), RETRY_PAUSE.toNanos()));
            } catch (RuntimeException e) {
                closeQuietly(probe);
                throw e;
            }
        }
    }

    private static void closeQuietly(KuduClient client) {
        try {
            client.close();
        } catch (KuduException ignored) {
            // the connection failure is what the caller needs to hear about
        }
    }

    /** Stops the Kerberos renewal (clients made here are the callers' to close). */
    @Override
    public void close() {
        if (login != null) {
            login.close();
        }
    }
}
