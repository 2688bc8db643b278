package org.eventindex.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer's {@code /ready} against a real Kudu and a real HDFS that go away and come back: 503 naming the
 * dependency and its error while one does not answer, 200 once both answer again, served from the background check
 * (a request never waits for a dependency), with the up/down gauge per dependency.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsumerReadinessTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    static Path tmp;

    private EmbeddedKudu kudu;
    private EmbeddedBroker broker;
    private EmbeddedHdfs hdfs;
    private Consumer consumer;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() throws IOException {
        // Kudu first: see ConsumerIntegrationTest (the JDK's TLS constraints for the mini cluster's certificates)
        kudu = EmbeddedKudu.start(tmp.resolve("kudu"), 1);
        broker = EmbeddedBroker.start(tmp.resolve("broker"));
        hdfs = EmbeddedHdfs.start(tmp.resolve("hdfs"));
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-ready");
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.SPOOL_DIR, tmp.resolve("spool").toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        p.setProperty(ConsumerConfig.READY_CHECK_INTERVAL, "1s");
        // no connection retries: a stopped NameNode is reported at once with its reason, not as a check in time-out
        org.apache.hadoop.conf.Configuration conf = hdfs.conf();
        conf.setInt("ipc.client.connect.max.retries", 0);
        conf.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
        consumer = new Consumer(ConsumerConfig.fromProperties(p, Map.of()), conf, Clock.systemUTC());
        consumer.start();
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[]{consumer, hdfs, broker, kudu}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // the others must still stop
                }
            }
        }
    }

    private record Ready(int status, JsonNode body, long millis) {
        String reason() {
            return body.get("reason").asText();
        }

        JsonNode dependency(String name) {
            for (JsonNode d : body.get("dependencies")) {
                if (d.get("name").asText().equals(name)) {
                    return d;
                }
            }
            throw new AssertionError("no dependency " + name + " in " + body);
        }
    }

    private Ready ready() {
        try {
            long t0 = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + consumer.httpPort() + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
            return new Ready(r.statusCode(), Json.tree(r.body().getBytes(StandardCharsets.UTF_8)), ms);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private double up(String dependency) {
        return DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.DEPENDENCY_UP, "dependency",
                dependency);
    }

    @Test
    void readyFollowsKuduAndHdfsGoingAwayAndComingBack() {
        Await.until("ready with HDFS and Kudu up", WAIT, () -> ready().status() == 200);
        Ready ok = ready();
        assertTrue(ok.body().get("ready").asBoolean(), ok.body().toString());
        assertTrue(ok.dependency("hdfs").get("up").asBoolean(), ok.body().toString());
        assertTrue(ok.dependency("kudu").get("up").asBoolean(), ok.body().toString());
        assertEquals(1, up("hdfs"));
        assertEquals(1, up("kudu"));

        downThenBack("kudu", "Kudu masters " + kudu.masterAddresses() + " unreachable", "hdfs", kudu::killMasters,
                kudu::startMasters);
        String hdfsDown = downThenBack("hdfs", "HDFS NameNode " + hdfs.uri().getHost() + ":" + hdfs.uri().getPort()
                + " of " + hdfs.uri(), "kudu", hdfs::stopNameNode, hdfs::restartNameNode);
        // one line, as the rest of the HDFS errors (ClusterErrors): not Hadoop's "Call From ... see: http://wiki..."
        // refused, or closed when the check's call was under way as the NameNode stopped
        assertTrue(hdfsDown.matches(".* unreachable: (Connection refused|the connection was closed during the call)"),
                hdfsDown);
        assertTrue(!hdfsDown.contains("\n") && !hdfsDown.contains("Call From") && !hdfsDown.contains("wiki"),
                hdfsDown);
    }

    /** An HA nameservice's NameNodes come from the configuration (a unit: the NameNodes of an HA pair). */
    @Test
    void anUnreachableHaNameserviceNamesItsNameNodesInOneLine() {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
        conf.set("dfs.nameservices", "ns1");
        conf.set("dfs.ha.namenodes.ns1", "nn1,nn2");
        conf.set("dfs.namenode.rpc-address.ns1.nn1", "nn-a.example.org:8020");
        conf.set("dfs.namenode.rpc-address.ns1.nn2", "nn-b.example.org:8020");
        java.net.ConnectException raw = new java.net.ConnectException("Call From vm/127.0.0.1 to nn-b.example.org:8020"
                + " failed on connection exception: java.net.ConnectException: Connection refused; For more details"
                + " see:  http://wiki.apache.org/hadoop/ConnectionRefused");
        raw.initCause(new java.net.ConnectException("Connection refused")); // as Hadoop's NetUtils wraps it
        IOException e = Consumer.hdfsDown(java.net.URI.create("hdfs://ns1"), conf,
                org.eventindex.cluster.ClusterSettings.defaults(), new IOException(raw.getMessage(), raw));
        assertEquals("HDFS NameNode nn-a.example.org:8020,nn-b.example.org:8020 (nameservice ns1) of hdfs://ns1"
                + " unreachable: Connection refused", e.getMessage());
        assertEquals(null, e.getCause());
    }

    /**
     * Stops {@code dependency}, waits for 503 naming it (its error, or a check that did not answer in time) while
     * {@code other} stays up, served at once from the cache; restarts it and waits for 200.
     *
     * @return the error shown while it was down
     */
    private String downThenBack(String dependency, String error, String other, Runnable stop, Runnable restart) {
        stop.run();
        Await.until("not ready while " + dependency + " is down", WAIT, () -> ready().status() == 503);
        Ready down = ready();
        assertTrue(down.reason().startsWith(dependency + ": "), down.body().toString());
        String shown = down.dependency(dependency).get("error").asText();
        assertTrue(shown.contains(error) || shown.startsWith("no answer within "), shown);
        assertTrue(down.dependency(other).get("up").asBoolean(), down.body().toString());
        assertEquals(0, up(dependency));
        assertEquals(1, up(other));
        // the verdict is cached: a request does not wait for the dependency (its client would, for seconds)
        assertTrue(down.millis() < 2_000, "/ready took " + down.millis() + " ms");

        restart.run();
        Await.until("ready again once " + dependency + " answers", WAIT, () -> ready().status() == 200);
        assertEquals(1, up(dependency));
        assertEquals(1, up(other));
        return shown;
    }
}
