package org.eventindex.deploy.chaos;

import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Takes the active broker of the {@link BrokerPair} down (kill -9, or SIGSTOP and its watchdog's kill) and measures
 * the standby's takeover: from the fault to the standby accepting STOMP connections on its own port, and to the
 * first message flowing again, sent and received through the clients' ordered broker list (as the admin login, on a
 * queue of the harness's own).
 */
final class BrokerTakeovers {
    /** The harness's own queue for the message-flow probe (the admin login may create and use any queue). */
    static final String PROBE_QUEUE = "/queue/eventindex.chaos.takeover";
    private static final Duration PROBE_CONNECT = Duration.ofSeconds(2);
    private static final Duration PROBE_RECEIVE = Duration.ofSeconds(5);

    /**
     * One takeover.
     *
     * @param killed   from the SIGSTOP to the watchdog's kill (null for kill -9, which is the kill itself)
     * @param accepting from the fault to the standby accepting connections on its port
     * @param flowing  from the fault to the first message sent and received again through the broker list
     */
    record Takeover(boolean paused, String from, String to, Duration killed, Duration accepting, Duration flowing) {
        @Override
        public String toString() {
            return (paused ? "paused " : "killed ") + from + ", " + to + " took over: "
                    + (killed == null ? "" : "watchdog kill after " + killed.toMillis() + " ms, ")
                    + "accepting STOMP after " + accepting.toMillis() + " ms, first message after "
                    + flowing.toMillis() + " ms";
        }
    }

    private final BrokerPair pair;
    private final StompSettings probe;
    private final List<Takeover> measured = Collections.synchronizedList(new ArrayList<>());

    BrokerTakeovers(BrokerPair pair, StompSettings admin) {
        this.pair = Objects.requireNonNull(pair, "pair is null");
        Objects.requireNonNull(admin, "admin is null");
        this.probe = new StompSettings(admin.endpoints(), admin.login(), admin.passcode(), PROBE_CONNECT,
                PROBE_RECEIVE, Duration.ZERO, admin.tls(), admin.frameLimits());
    }

    List<Takeover> measured() {
        return List.copyOf(measured);
    }

    /** Pauses ({@code pause}) or kills {@code active}, then waits for each step of the takeover. */
    Takeover measure(boolean pause, ChildProcess active, Duration timeout) {
        ChildProcess standby = pair.other(active);
        long t0 = System.nanoTime();
        Duration killed = null;
        if (pause) {
            active.pause();
            ChaosWait.until("the watchdog killing the paused " + active.name(), timeout, () -> !active.isAlive());
            killed = since(t0);
        } else {
            active.kill9();
        }
        ChaosWait.until(standby.name() + " accepting STOMP connections (log " + standby.log() + ")", timeout,
                () -> pair.listens(standby));
        Duration accepting = since(t0);
        ChaosWait.until("a message sent and received through the broker list", timeout, this::messageFlows);
        Takeover t = new Takeover(pause, active.name(), standby.name(), killed, accepting, since(t0));
        measured.add(t);
        return t;
    }

    /** One attempt: subscribe, send a fresh message with a receipt, and receive it back; false on any failure. */
    private boolean messageFlows() {
        String id = UUID.randomUUID().toString();
        CompletableFuture<Boolean> back = new CompletableFuture<>();
        try (StompConnection c = StompConnection.connect(probe)) {
            c.subscribe(PROBE_QUEUE, 1, (StompMessage m) -> {
                try {
                    c.ack(m); // probes of earlier failed attempts are drained too
                } catch (IOException e) {
                    back.completeExceptionally(e);
                }
                if (id.equals(new String(m.body(), StandardCharsets.UTF_8))) {
                    back.complete(true);
                }
            });
            c.send(PROBE_QUEUE, id.getBytes(StandardCharsets.UTF_8), Map.of("content-type", "text/plain"));
            return back.get(PROBE_RECEIVE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (IOException | ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** min / median / max of {@code values} in ms, for the run's summary. */
    static String spread(List<Duration> values) {
        if (values.isEmpty()) {
            return "-";
        }
        List<Long> ms = new ArrayList<>(values.stream().map(Duration::toMillis).sorted().toList());
        return ms.get(0) + " / " + ms.get(ms.size() / 2) + " / " + ms.get(ms.size() - 1) + " ms";
    }
}
