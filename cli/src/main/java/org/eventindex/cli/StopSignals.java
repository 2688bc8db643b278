package org.eventindex.cli;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM, SIGINT (and, for the demo, SIGHUP) as a request to stop, taken in place of the JVM's own handling: the JVM
 * would run the shutdown hooks and exit 143 or 130 whatever they did, while a daemon stopped cleanly is to exit 0
 * (systemd counts that as success, docs/supervisor.md). The caller stops what it started while the JVM is not yet
 * shutting down, then returns its exit status. Hadoop's HDFS mini cluster, stopped from a shutdown hook, also fails
 * with "Shutdown in progress". {@code sun.misc.Signal} (module jdk.unsupported) is the JDK's only way to receive a
 * signal.
 */
public final class StopSignals {
    private static final Logger LOG = LoggerFactory.getLogger(StopSignals.class);

    /** What the daemons stop on: a service manager's stop (TERM) and Ctrl-C (INT). */
    public static final List<String> DAEMON = List.of("TERM", "INT");

    private final CountDownLatch received = new CountDownLatch(1);
    private final AtomicReference<String> first = new AtomicReference<>();
    private final List<String> ignored = new ArrayList<>();

    private StopSignals() {
    }

    /** Takes over {@code names} (e.g. {@code TERM}); from then on they only release {@link #await()}. */
    public static StopSignals install(List<String> names) {
        return install(names, () -> { });
    }

    /**
     * Takes over {@code names}; the first of them releases {@link #await()} and runs {@code onSignal} (on the JVM's
     * signal thread: it must return quickly, e.g. count down a latch).
     */
    public static StopSignals install(List<String> names, Runnable onSignal) {
        requireNonNull(names, "names is null");
        requireNonNull(onSignal, "onSignal is null");
        StopSignals s = new StopSignals();
        for (String name : names) {
            SignalHandler previous = Signal.handle(new Signal(name), signal -> {
                if (s.first.compareAndSet(null, "SIG" + signal.getName())) {
                    s.received.countDown();
                    onSignal.run();
                }
            });
            // A signal ignored when the JVM started (a shell gives its background jobs SIGINT ignored) stays
            // ignored: the JVM does not install a handler for it, whatever the program asks.
            if (previous == SignalHandler.SIG_IGN) {
                s.ignored.add("SIG" + name);
            }
        }
        return s;
    }

    /**
     * Takes over {@link #DAEMON} for daemon {@code name}, running {@code onSignal} on the first; says in the daemon's
     * log (a warning, in the log's own format, so that a JSON log stays JSON) when a signal cannot be received because
     * the process was started with it ignored.
     */
    public static StopSignals daemon(String name, Runnable onSignal) {
        StopSignals signals = install(DAEMON, onSignal);
        if (!signals.ignored().isEmpty()) {
            LOG.warn("{}: {} ignored by this process (started in the background by a shell?): stop it with SIGTERM",
                    name, String.join(" and ", signals.ignored()));
        }
        return signals;
    }

    /** The signals this process ignores, so cannot be stopped by: normally none. */
    public List<String> ignored() {
        return List.copyOf(ignored);
    }

    /** The first signal received ({@code SIGTERM}, ...), or null before any. */
    public String received() {
        return first.get();
    }

    /** Blocks until one of the signals arrives; returns its name ({@code SIGINT}, ...). */
    public String await() throws InterruptedException {
        received.await();
        return first.get();
    }
}
