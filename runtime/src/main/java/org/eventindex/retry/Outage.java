package org.eventindex.retry;

import org.slf4j.Logger;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The log of one dependency's outages (a broker, the Kudu masters, the KDC...), shared by every loop of the process
 * that retries it: one WARN line per retry with the reason and the wait, and one INFO line when it answers again.
 *
 * <pre>
 * broker 127.0.0.1:61613 unreachable (Connection refused); retry 5 in 8 s
 * broker 127.0.0.1:61613 reachable again after 2 min 10 s, 14 retries
 * </pre>
 *
 * <p>Several threads retrying the same dependency (the supervisor has one STOMP worker per queue and slot on each
 * broker) share one instance: a failure is logged only once half the wait announced by the previous line has passed,
 * so they give one line per retry interval together, not one each; the next line counts the failures left out. A
 * single loop, which waits the whole announced time before its next attempt, has every retry logged. The clock is
 * injected so that tests move it by hand.
 */
public final class Outage {
    private final String dependency;
    private final String downWord;
    private final String upWord;
    private final Logger log;
    private final LongSupplier nanoTime;
    private long startedAt;
    private long quietUntil;
    private int retries;
    private int unlogged;
    private boolean down;

    /**
     * @param dependency what the lines name, e.g. {@code broker 127.0.0.1:61613}, {@code Kudu masters h1:7051,h2:7051}
     * @param log        the logger of the lines (the retrying component's)
     * @param nanoTime   the monotonic clock, {@code System::nanoTime} but in tests
     */
    public Outage(String dependency, Logger log, LongSupplier nanoTime) {
        this(dependency, "unreachable", "reachable again", log, nanoTime);
    }

    /**
     * An outage of something that is not a dependency reached over the network (e.g. the sending of signals): its
     * lines read "{@code <what> <down> (<reason>); retry ...}" and "{@code <what> <up> after ...}".
     */
    public Outage(String what, String down, String up, Logger log, LongSupplier nanoTime) {
        this.dependency = Objects.requireNonNull(what, "what is null");
        this.downWord = Objects.requireNonNull(down, "down is null");
        this.upWord = Objects.requireNonNull(up, "up is null");
        this.log = Objects.requireNonNull(log, "log is null");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime is null");
    }

    /** On the system's monotonic clock. */
    public Outage(String dependency, Logger log) {
        this(dependency, log, System::nanoTime);
    }

    public String dependency() {
        return dependency;
    }

    /**
     * An attempt failed and the caller waits {@code wait} before its retry number {@code retry}: logged as
     * "{@code <dependency> unreachable (<reason>); retry <retry> in <wait>}" unless another thread logged this outage
     * less than half its announced wait ago.
     *
     * @param retry the caller's count of retries of this outage, from 1 (the retry after the first failure)
     * @return whether a line was logged
     */
    public synchronized boolean retrying(String reason, int retry, Duration wait) {
        return failed(reason, retry, wait, true);
    }

    /**
     * For a loop that tries again at a fixed {@code interval}, without a backoff of its own (a ZooKeeper client that
     * reconnects every second, a heartbeat every 30 s): logged as {@link #retrying} does, but only at retries 1, 2,
     * 4, 8, 16, 32, 64 and then every 64th, so that a long outage gives a few lines an hour, not one per interval.
     *
     * @return whether a line was logged
     */
    public synchronized boolean retryingEvery(String reason, int retry, Duration interval) {
        return failed(reason, retry, interval, retry <= 64 ? Integer.bitCount(retry) == 1 : retry % 64 == 0);
    }

    private boolean failed(String reason, int retry, Duration wait, boolean due) {
        Objects.requireNonNull(wait, "wait is null");
        long now = nanoTime.getAsLong();
        if (!down) {
            down = true;
            startedAt = now;
            quietUntil = now;
            retries = 0;
            unlogged = 0;
        }
        retries = Math.max(retries, retry);
        if (!due || now - quietUntil < 0) {
            unlogged++;
            return false;
        }
        String others = unlogged == 0 ? "" : " (" + unlogged + " more failed " + (unlogged == 1 ? "attempt" : "attempts")
                + " since the last line)";
        log.warn("{} {} ({}); retry {} in {}{}", dependency, downWord, reason, retry, humane(wait), others);
        unlogged = 0;
        quietUntil = now + wait.toNanos() / 2;
        return true;
    }

    /**
     * An attempt succeeded: after an outage, logged once as
     * "{@code <dependency> reachable again after <time>, <n> retries}"; otherwise nothing.
     */
    public synchronized void reachable() {
        if (!down) {
            return;
        }
        down = false;
        log.info("{} {} after {}, {} {}", dependency, upWord, humane(Duration.ofNanos(nanoTime.getAsLong()
                - startedAt)), retries, retries == 1 ? "retry" : "retries");
    }

    /** Whether the last attempt failed. */
    public synchronized boolean down() {
        return down;
    }

    /**
     * A wait as an operator reads it: {@code 250 ms}, {@code 8 s}, {@code 2 min 10 s}, {@code 3 h 5 min}; below a
     * minute to the second (to the millisecond under one second), above to the second or the minute.
     */
    public static String humane(Duration d) {
        long ms = Math.max(0, d.toMillis());
        if (ms < 1000) {
            return ms + " ms";
        }
        long s = Math.round(ms / 1000.0);
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        long min = s / 60;
        return min / 60 + " h" + (min % 60 == 0 ? "" : " " + min % 60 + " min");
    }
}
