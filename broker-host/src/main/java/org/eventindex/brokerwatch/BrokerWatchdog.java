package org.eventindex.brokerwatch;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Kills the local broker when it listens but stops answering. A stopped (SIGSTOP) or hung broker keeps its port
 * (the kernel accepts connections for it), so clients that connect to it wait for their timeouts instead of moving
 * to the other brokers of the alias at once, and the messages stored in its KahaDB stay unread. SIGKILL ends the
 * process: connections are refused, clients go to the other brokers, and the broker's service manager (systemd
 * {@code Restart=always}) starts it again on its own store, whose messages the supervisor then reads (decision 0042).
 * A broker that does not listen (down, or still starting) is left alone: bringing a dead process back is the service
 * manager's job.
 *
 * <p>One {@link #check()} per probe period: after {@code silentLimit} silent probes in a row, the process named by
 * the pid file is killed with SIGKILL (a stopped process cannot handle SIGTERM until it is continued).
 */
final class BrokerWatchdog {
    /** What one check did. */
    enum Action {
        /** the broker answered, or does not listen: nothing to do */
        NONE,
        /** the broker was silent, fewer times in a row than the limit */
        WAITING,
        /** the broker was silent too many times in a row and was killed */
        KILLED,
        /** the broker was silent too many times in a row, but no live process was named by the pid file */
        NO_PROCESS
    }

    /** Sends SIGKILL to a process; false when it does not exist (any more). */
    interface Killer {
        boolean kill(long pid);

        /** SIGKILL through {@link ProcessHandle}, which works for any process of this user. */
        Killer SIGKILL = pid -> ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
    }

    private final Supplier<BrokerProbe.Outcome> probe;
    private final Path pidFile;
    private final int silentLimit;
    private final Killer killer;
    private final Consumer<String> log;
    private int silent;

    BrokerWatchdog(Supplier<BrokerProbe.Outcome> probe, Path pidFile, int silentLimit, Killer killer,
                   Consumer<String> log) {
        this.probe = requireNonNull(probe, "probe is null");
        this.pidFile = requireNonNull(pidFile, "pidFile is null");
        if (silentLimit < 1) {
            throw new IllegalArgumentException("silent probes before a kill must be at least 1: " + silentLimit);
        }
        this.silentLimit = silentLimit;
        this.killer = requireNonNull(killer, "killer is null");
        this.log = requireNonNull(log, "log is null");
    }

    /** One probe and what follows from it. */
    Action check() {
        BrokerProbe.Outcome outcome = probe.get();
        if (outcome != BrokerProbe.Outcome.SILENT) {
            if (silent > 0) {
                log.accept("broker " + (outcome == BrokerProbe.Outcome.ANSWERED ? "answers" : "does not listen")
                        + " again after " + silent + " silent probe(s)");
            }
            silent = 0;
            return Action.NONE;
        }
        silent++;
        if (silent < silentLimit) {
            log.accept("broker silent (" + silent + " of " + silentLimit + " probes before it is killed)");
            return Action.WAITING;
        }
        silent = 0;
        Optional<Long> pid = readPid();
        if (pid.isEmpty()) {
            log.accept("broker silent for " + silentLimit + " probes, but the pid file " + pidFile
                    + " names no process; nothing killed");
            return Action.NO_PROCESS;
        }
        if (!killer.kill(pid.get())) {
            log.accept("broker silent for " + silentLimit + " probes, but its process " + pid.get() + " (pid file "
                    + pidFile + ") is gone; nothing killed");
            return Action.NO_PROCESS;
        }
        log.accept("broker silent for " + silentLimit + " probes: killed its process " + pid.get()
                + " with SIGKILL so that its service manager restarts it");
        return Action.KILLED;
    }

    private Optional<Long> readPid() {
        try {
            String text = Files.readString(pidFile).strip();
            return Optional.of(Long.parseLong(text));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | NumberFormatException e) {
            log.accept("cannot read a process id from " + pidFile + ": " + e.getMessage());
            return Optional.empty();
        }
    }
}
