package org.eventindex.rebuild;

import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenIdentifier;
import org.apache.hadoop.hdfs.web.WebHdfsConstants;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * Keeps the HDFS delegation tokens the driver granted its tasks ({@link TaskAccess}) valid for as long as the job runs
 * (decision 0082). A token is refused once its renewal date passes
 * ({@code dfs.namenode.delegation.token.renew-interval} after its issue or its last renewal, 24 h by default); its
 * renewer (the driver's login user) may move that date on, up to the token's maximum lifetime
 * ({@code dfs.namenode.delegation.token.max-lifetime}, 7 days by default). A renewal changes no bytes of the token, so
 * the copies the executors already hold stay valid with it.
 * <p>
 * Each token is renewed once when it is tracked (which tells its renewal date, and fails the grant when the driver
 * cannot renew it), then again when half the time to its renewal date has passed, on a daemon thread of its own. A
 * renewal that fails is tried again after a quarter of the time left (at least {@value #MIN_DELAY_SECONDS} s, at most
 * {@value #MAX_RETRY_SECONDS} s) until an hour past that date ({@link #GRACE_MILLIS}); a token at its maximum
 * lifetime is no longer renewed. A token of a kind Hadoop has no renewer for is left (an HDFS one fails the grant:
 * its renewer is missing from the class path). Each renewal, failure and the end of a token's lifetime is a line to
 * the job's log.
 */
final class TokenRenewal implements AutoCloseable {
    static final long MIN_DELAY_SECONDS = 1;
    static final long MAX_RETRY_SECONDS = 60;
    /**
     * How long after its renewal date a failed renewal is still tried: the NameNode drops expired tokens once an hour
     * and until then renews them, and its clock need not be the driver's.
     */
    static final long GRACE_MILLIS = TimeUnit.HOURS.toMillis(1);

    /** Renews a token as its renewer: its new renewal date, in milliseconds since the epoch. */
    @FunctionalInterface
    interface Renewer {
        long renew(Token<?> token) throws IOException, InterruptedException;
    }

    private final Renewer renewer;
    private final Clock clock;
    private final Consumer<String> log;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rebuild-token-renewal");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger renewals = new AtomicInteger();

    /** @param log receives one line per renewal, failure, or token at the end of its lifetime */
    TokenRenewal(Renewer renewer, Clock clock, Consumer<String> log) {
        this.renewer = requireNonNull(renewer, "renewer is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.log = requireNonNull(log, "log is null");
    }

    /**
     * Renews each delegation token of {@code credentials} now and keeps renewing it until {@link #close()}.
     *
     * @throws IOException naming the token's service when the first renewal fails: the tasks would be refused the
     *                     day its renewal date passes, so the job does not start on it
     */
    synchronized void track(Credentials credentials) throws IOException {
        for (Token<?> token : requireNonNull(credentials, "credentials is null").getAllTokens()) {
            long expiry;
            try {
                expiry = renewer.renew(token);
            } catch (IOException e) {
                throw new IOException("cannot renew " + name(token) + " as its renewer: " + e.getMessage(), e);
            } catch (UnsupportedOperationException e) {
                // what Hadoop says of a kind it knows no renewer for
                if (isHdfs(token)) {
                    // HDFS's renewer missing from the class path: the job would be refused in a day
                    throw new IOException("cannot renew " + name(token) + ": " + e.getMessage()
                            + " (the HDFS client's token renewer is not on the driver's class path)", e);
                }
                log.accept(name(token) + " is not renewed: " + e.getMessage());
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted renewing " + name(token), e);
            }
            renewals.incrementAndGet();
            schedule(token, expiry, Long.MIN_VALUE, nextDelay(clock.millis(), expiry));
        }
    }

    /** Renewals done so far, the first ones included. */
    int renewals() {
        return renewals.get();
    }

    /** Milliseconds until the next renewal of a token valid until {@code expiry}: half the time left, at least 1 s. */
    static long nextDelay(long now, long expiry) {
        return Math.max(TimeUnit.SECONDS.toMillis(MIN_DELAY_SECONDS), (expiry - now) / 2);
    }

    /** Milliseconds until a failed renewal is tried again: a quarter of the time left, within 1 s and 60 s. */
    static long retryDelay(long now, long expiry) {
        return Math.min(TimeUnit.SECONDS.toMillis(MAX_RETRY_SECONDS),
                Math.max(TimeUnit.SECONDS.toMillis(MIN_DELAY_SECONDS), (expiry - now) / 4));
    }

    /** The kinds of HDFS's delegation tokens (RPC, WebHDFS, WebHDFS over TLS). */
    static boolean isHdfs(Token<?> token) {
        Text kind = token.getKind();
        return kind.equals(DelegationTokenIdentifier.HDFS_DELEGATION_KIND)
                || kind.equals(WebHdfsConstants.WEBHDFS_TOKEN_KIND) || kind.equals(WebHdfsConstants.SWEBHDFS_TOKEN_KIND);
    }

    private static String name(Token<?> token) {
        return (isHdfs(token) ? "the HDFS delegation token" : "the " + token.getKind() + " token") + " of "
                + token.getService();
    }

    private void schedule(Token<?> token, long expiry, long previous, long delayMillis) {
        if (expiry == previous) {
            log.accept(name(token) + " is at its maximum lifetime: tasks are refused from "
                    + Instant.ofEpochMilli(expiry) + " (a job that runs longer must be split, e.g. by epoch)");
            return;
        }
        later(() -> renew(token, expiry), delayMillis);
    }

    private void later(Runnable task, long delayMillis) {
        try {
            timer.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the job has ended
        }
    }

    private void renew(Token<?> token, long expiry) {
        try {
            long next = renewer.renew(token);
            renewals.incrementAndGet();
            log.accept("renewed " + name(token) + " until " + Instant.ofEpochMilli(next));
            schedule(token, next, expiry, nextDelay(clock.millis(), next));
        } catch (Throwable e) {
            if (timer.isShutdown()) {
                return; // the job ended during the call (close() interrupts it): no failure to report
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = clock.millis();
            if (now >= expiry + GRACE_MILLIS) {
                log.accept(name(token) + " expired at " + Instant.ofEpochMilli(expiry) + " and cannot be renewed ("
                        + e + "): tasks that read with it are refused");
                return;
            }
            // past its date a token may still be renewed until the NameNode drops it (hourly) or its clock differs
            long retry = retryDelay(now, expiry);
            log.accept("cannot renew " + name(token) + " (" + e.getMessage() + "); trying again in "
                    + Duration.ofMillis(retry).toSeconds() + " s, valid until " + Instant.ofEpochMilli(expiry));
            later(() -> renew(token, expiry), retry);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
