package org.eventindex.deploy.chaos;

import org.eventindex.testing.ChildJvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One daemon of the chaos cluster (or bench-seed's consumer) run as a child process: started from a fixed command line
 * (so a restart is the same daemon on the same ports and data), its output appended to one log file, and the faults the
 * harness injects: SIGKILL, SIGSTOP/SIGCONT. {@link #close()} stops it for good (SIGCONT first, so a paused process can
 * exit).
 */
public final class ChildProcess implements AutoCloseable {
    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private Process process;
    private boolean paused;

    public ChildProcess(String name, List<String> command, Map<String, String> environment, Path log) {
        this.name = Objects.requireNonNull(name, "name is null");
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.log = Objects.requireNonNull(log, "log is null");
    }

    /**
     * {@code main} on {@code classPath} in a JVM of this machine's java with the usual flags of a small daemon JVM on
     * a 2-core machine; it exits at its first OutOfMemoryError (status 3) instead of running on half-broken, as
     * {@code bin/eventindex} starts the daemons.
     */
    static ChildJvm java(String main, String classPath, String heap) {
        return ChildJvm.main(main, classPath).heap(heap).quickStart().daemon();
    }

    public String name() {
        return name;
    }

    public Path log() {
        return log;
    }

    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().putAll(environment);
            process = pb.start();
            paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + " (" + command.get(0) + "); log " + log, e);
        }
    }

    /** The exit status once the process ended; empty while it runs or before it was started. */
    public synchronized Optional<Integer> exitCode() {
        return process == null || process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException(name + " was never started");
        }
        return process.pid();
    }

    /** SIGKILL, then waits for the process to be gone. */
    synchronized void kill9() {
        if (process == null) {
            return;
        }
        if (paused) {
            resume();
        }
        process.destroyForcibly();
        waitGone(process);
    }

    synchronized void pause() {
        signal("STOP");
        paused = true;
    }

    synchronized void resume() {
        signal("CONT");
        paused = false;
    }

    private void signal(String signal) {
        if (!isAlive()) {
            throw new IllegalStateException("cannot send SIG" + signal + " to " + name + ": not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " for " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** SIGTERM, then SIGKILL after a grace period; idempotent. */
    @Override
    public synchronized void close() {
        if (process == null || !process.isAlive()) {
            return;
        }
        if (paused) {
            resume();
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        waitGone(process);
    }

    private void waitGone(Process p) {
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " (pid " + p.pid() + ") did not exit after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name + " to exit", e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
