package org.eventindex.deploy;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * SIGINT (Ctrl-C), SIGTERM and SIGHUP as a request to stop, taken in place of the JVM's own handling, which would run
 * the shutdown hooks: the caller stops what it started while the JVM is not shutting down yet. Hadoop's HDFS mini
 * cluster, stopped from a shutdown hook, fails with "Shutdown in progress" (its DataNode removes a hook of its own on
 * the way down). {@code sun.misc.Signal} (module jdk.unsupported) is the JDK's only way to receive a signal.
 */
final class StopSignals {
    private static final List<String> SIGNALS = List.of("INT", "TERM", "HUP");

    private final CountDownLatch received = new CountDownLatch(1);
    private final AtomicReference<String> first = new AtomicReference<>();
    private final List<String> ignored = new ArrayList<>();

    private StopSignals() {
    }

    /** Takes over the signals; from then on they only release {@link #await()}. */
    static StopSignals install() {
        StopSignals s = new StopSignals();
        for (String name : SIGNALS) {
            SignalHandler previous = Signal.handle(new Signal(name), signal -> {
                s.first.compareAndSet(null, "SIG" + signal.getName());
                s.received.countDown();
            });
            // A signal ignored when the JVM started (a shell gives its background jobs SIGINT ignored) stays
            // ignored: the JVM does not install a handler for it, whatever the program asks.
            if (previous == SignalHandler.SIG_IGN) {
                s.ignored.add("SIG" + name);
            }
        }
        return s;
    }

    /** The signals this process ignores, so cannot be stopped by: normally none. */
    List<String> ignored() {
        return List.copyOf(ignored);
    }

    /** Blocks until one of the signals arrives; returns its name ({@code SIGINT}, ...). */
    String await() throws InterruptedException {
        received.await();
        return first.get();
    }
}
