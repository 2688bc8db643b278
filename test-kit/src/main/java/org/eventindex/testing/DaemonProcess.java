package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A project command run as its own JVM (the test's class path), as an operator or systemd runs it, so that it can be
 * stopped with a real signal and its real exit status read. Its stdout and stderr go to a log file. SIGINT is given
 * its default action first where {@code env --default-signal} exists: a process started in the background by a
 * non-interactive shell (a CI script) inherits SIGINT ignored, and a JVM keeps an ignored signal ignored.
 */
public final class DaemonProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private DaemonProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts {@code main} with {@code args}; output to {@code log}. */
    public static DaemonProcess start(Class<?> main, Path log, String... args) throws IOException {
        return start(main, log, List.of(), args);
    }

    /** Starts {@code main} with {@code jvmOptions} (e.g. {@code -Djava.security.krb5.conf=...}) and {@code args}. */
    public static DaemonProcess start(Class<?> main, Path log, List<String> jvmOptions, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        if (defaultSignalSupported()) {
            command.addAll(List.of("env", "--default-signal=INT,TERM"));
        }
        command.addAll(ChildJvm.main(main).heap("256m").quickStart().options(jvmOptions).args(args).command());
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        return new DaemonProcess(pb.start(), log);
    }

    private static boolean defaultSignalSupported() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits until {@code GET http://127.0.0.1:port/path} answers 200, failing early if the process exits. */
    public void awaitHttpOk(int port, String path, Duration timeout) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build();
        Await.until("the daemon answering 200 on " + path + " (log " + log + ")", timeout, () -> {
            assertTrue(process.isAlive(), () -> "the daemon exited with " + process.exitValue() + ":\n" + log());
            try {
                return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /** Waits until the log holds {@code text}, failing early if the process exits. */
    public void awaitLog(String text, Duration timeout) {
        Await.until("'" + text + "' in " + log, timeout, () -> {
            boolean found = log().contains(text);
            assertTrue(found || process.isAlive(), () -> "the daemon exited with " + process.exitValue() + ":\n"
                    + log());
            return found;
        });
    }

    /**
     * Sends signal {@code name} ({@code TERM}, {@code INT}) with kill(1), as systemd or a terminal would; env execs
     * java, so the started process is the JVM.
     */
    public void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(process.pid())).redirectErrorStream(true)
                .start();
        String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS), "kill did not return");
        assertEquals(0, kill.exitValue(), "kill -s " + name + ": " + out);
    }

    /** Waits for the exit; returns its status. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        assertTrue(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS),
                "the daemon did not exit within " + timeout + ":\n" + log());
        return process.exitValue();
    }

    /** Whether the process still runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** What the daemon printed so far. */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the daemon's log " + log, e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
