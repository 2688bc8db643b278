package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A real broker, a sender, and test-side consumers of any queue, for the supervisor's broker tests. Received messages
 * are kept in order; a handler may act on each (e.g. a fake consumer that answers signals).
 */
final class BrokerHarness implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    final EmbeddedBroker broker;
    final StompSettings settings;
    final StompSender sender;
    private final List<StompConnection> connections = new CopyOnWriteArrayList<>();

    BrokerHarness(Path dir) {
        broker = EmbeddedBroker.start(dir);
        settings = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
        sender = new StompSender(settings);
    }

    /** Properties of an in-process supervisor on this broker with a free HTTP port. */
    Properties supervisorProperties(Path journalDir) {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(SupervisorConfig.JOURNAL_DIR, journalDir.toString());
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_INITIAL, "100ms");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_MAX, "1s");
        p.setProperty(SupervisorConfig.SHUTDOWN_GRACE, "10s");
        p.setProperty(SupervisorConfig.TICK_INTERVAL, "50ms");
        // one producer subscription: tests that send several attempts of a file expect the broker's order to decide
        // which one wins (with several, the journal's order decides; decision 0035)
        p.setProperty(SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX, "1");
        return p;
    }

    Supervisor start(Properties p, Clock clock) throws IOException {
        Supervisor s = new Supervisor(SupervisorConfig.fromProperties(p, Map.of()), clock);
        s.start();
        Await.until("supervisor subscribed to its queues", TIMEOUT, () -> s.readiness().ready());
        return s;
    }

    /** Subscribes to a queue; every message is added to {@code into}, handed to {@code handler}, then acked. */
    void consume(String queue, List<StompMessage> into, Consumer<StompMessage> handler) throws IOException {
        StompConnection c = StompConnection.connect(settings);
        connections.add(c);
        c.subscribe(queue, 10, new StompConnection.Listener() {
            @Override
            public void onMessage(StompMessage m) {
                into.add(m);
                handler.accept(m);
                try {
                    c.ack(m);
                } catch (IOException e) {
                    throw new AssertionError("cannot ack " + m.messageId() + " on " + queue, e);
                }
            }
        });
    }

    void send(String queue, byte[] body) throws IOException {
        sender.send(queue, body, Map.of());
    }

    void send(String queue, String body) throws IOException {
        send(queue, body.getBytes(StandardCharsets.UTF_8));
    }

    void control(Object message) throws IOException {
        send(Queues.SUPERVISOR_CONTROL, Json.write(message));
    }

    /** A fake consumer's answer to a signal: DONE with every expected event, sent to the control queue. */
    void reportDone(ConsumerSignal s) {
        try {
            control(new ConsumerReport(ConsumerReport.TYPE, s.signalId(), s.dataset(), "fake-consumer",
                    ConsumerReport.DONE, "/ei/" + s.container() + "/" + s.dataset() + ".parquet",
                    s.expectedEvents(), s.expectedEvents(), 0, s.objects().size(), 1000, 10, null, 0, false));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot report signal " + s.signalId(), e);
        }
    }

    static ConsumerSignal signal(StompMessage m) {
        try {
            return Json.read(m.body(), ConsumerSignal.class);
        } catch (IOException e) {
            throw new AssertionError("unreadable signal " + new String(m.body(), StandardCharsets.UTF_8), e);
        }
    }

    static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        connections.forEach(StompConnection::close);
        sender.close();
        broker.close();
    }
}
