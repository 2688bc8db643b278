package org.eventindex.deploy;

import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.Queues;
import org.eventindex.ops.CredentialFiles;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.BrokerLoginFiles;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.HttpGets;
import org.eventindex.testing.MetricsText;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker passwords and the S3 key rotated while producers send and the supervisor and the consumer work, in the
 * order docs/security.md ("Rotating credentials") gives a site, on two independent brokers running the shipped
 * template's logins ({@code broker-host/activemq/login.config} over password files each broker reads again when they
 * change) and an S3 server holding several keys: (1) the brokers accept the new passwords beside the old ones
 * ({@code users-next.properties}) and S3 issues a second key; (2) the daemons' secret files are replaced (read again
 * by the daemons at their next connection or request) while producers of the first dataset still run with the old
 * ones; (3) a rolling restart of the brokers makes every daemon log in again, now with the new passwords; (4) the old
 * passwords and the old key are revoked, the brokers restarted once more, and the last dataset goes through on the
 * new credentials alone. Every dataset ends in Kudu exactly once; nothing is lost or left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class CredentialRotationIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final List<String> ROTATED = List.of(BrokerLogins.PRODUCER, BrokerLogins.SUPERVISOR,
            BrokerLogins.CONSUMER);
    private static final String NEW_ACCESS_KEY = "eventindex-rotated";
    private static final String NEW_SECRET_KEY = "eventindex-rotated-secret";

    @TempDir
    static Path work;

    private EmbeddedStack stack;
    private PipelineRun pipeline;

    @BeforeAll
    void startStack() throws IOException {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "rot_", 4, 1)
                .withBrokers(2).withBrokerLoginConfig(Path.of("..", "broker-host", "activemq", "login.config")),
                s -> { });
        pipeline = new PipelineRun(stack, Path.of(System.getProperty("ei.producer.jar")), s -> { });
    }

    @AfterAll
    void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void everyDatasetEndsInKuduOnceWhileBrokerPasswordsAndTheS3KeyAreRotated() throws Exception {
        List<GeneratedDataset> datasets = pipeline.generate(List.of(
                new GeneratorSpec("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 3, 100, 1, 0, 0, 0,
                        false, 21L),
                new GeneratorSpec("data17_13TeV.00327637.physics_Main.merge.AOD.f838_m1824", 1, 100, 1, 0, 0, 0,
                        false, 22L),
                new GeneratorSpec("data17_13TeV.00327638.physics_Main.merge.AOD.f838_m1824", 2, 100, 1, 1, 0, 0,
                        false, 23L)), work.resolve("spb"));
        pipeline.registerManifests(datasets);
        Map<String, String> oldPasswords = new LinkedHashMap<>();
        Map<String, String> newPasswords = new LinkedHashMap<>();
        for (String login : ROTATED) {
            oldPasswords.put(login, stack.brokerLogins().password(login));
            newPasswords.put(login, "rotated-" + login + "-" + Long.toHexString(System.nanoTime()));
        }
        ProducerLauncher.ProducerEndpoints before = stack.producerEndpoints();
        ProducerLauncher.ProducerEndpoints after = new ProducerLauncher.ProducerEndpoints(stack.brokerEndpoints(),
                BrokerLogins.PRODUCER, newPasswords.get(BrokerLogins.PRODUCER), before.s3Endpoint(), before.bucket(),
                NEW_ACCESS_KEY, NEW_SECRET_KEY);

        ExecutorService producers = Executors.newSingleThreadExecutor();
        try {
            // the first dataset's producers run one after the other on the old credentials through the switch
            Future<Integer> first = producers.submit(() -> pipeline.runProducers(datasets.subList(0, 1), 1, before));

            // (1) the brokers accept old and new passwords; S3 holds a second key
            for (int i = 0; i < stack.brokers().size(); i++) {
                BrokerLoginFiles.writeOwnerOnly(stack.brokerLoginDir(i).resolve(BrokerLoginFiles.USERS_NEXT),
                        BrokerLoginFiles.lines(newPasswords));
            }
            stack.s3().addKey(NEW_ACCESS_KEY, NEW_SECRET_KEY);
            // (2) the daemons' files: the S3 pair is used from the next request, the passwords at the next login
            BrokerLoginFiles.writeOwnerOnly(stack.s3SecretKeyFile(), NEW_SECRET_KEY);
            BrokerLoginFiles.writeOwnerOnly(stack.s3AccessKeyFile(), NEW_ACCESS_KEY);
            for (String login : ROTATED) {
                BrokerLoginFiles.writeOwnerOnly(BrokerLogins.passwordFile(stack.secretsDir(), login),
                        newPasswords.get(login));
            }
            // (3) one broker at a time: each daemon logs in again, with the password its file holds now
            rollingRestart();
            pipeline.runProducers(datasets.subList(1, 2), 1, after);
            assertEquals(3, first.get().intValue(), "producer runs of the first dataset");

            // (4) the old secrets revoked everywhere, the brokers restarted: only the new credentials work now
            Map<String, String> logins = new LinkedHashMap<>();
            for (String login : List.of(BrokerLogins.OPERATOR, BrokerLogins.ADMIN)) {
                logins.put(login, stack.brokerLogins().password(login));
            }
            logins.putAll(newPasswords);
            for (int i = 0; i < stack.brokers().size(); i++) {
                BrokerLoginFiles.writeOwnerOnly(stack.brokerLoginDir(i).resolve(BrokerLoginFiles.USERS),
                        BrokerLoginFiles.lines(logins));
                BrokerLoginFiles.writeOwnerOnly(stack.brokerLoginDir(i).resolve(BrokerLoginFiles.USERS_NEXT), "");
            }
            stack.s3().revokeKey(EmbeddedStack.S3_ACCESS_KEY);
            rollingRestart();
            assertEquals(3, pipeline.runProducers(datasets.subList(2, 3), 2, after),
                    "producer runs of the last dataset (one a retried job's duplicate)");
        } finally {
            producers.shutdownNow();
        }
        pipeline.awaitDone(datasets, TIMEOUT);

        List<String> problems = new ArrayList<>();
        for (GeneratedDataset ds : datasets) {
            problems.addAll(pipeline.measure(ds).problems());
        }
        assertEquals(List.of(), problems, "every dataset in Kudu exactly once, one HDFS file each");
        assertTrue(stack.s3().requestsWith(NEW_ACCESS_KEY) > 0, "the consumer read with the new key");
        for (EmbeddedBroker b : stack.brokers()) {
            assertEquals(0, b.queueSize(Queues.SUPERVISOR), "producer messages left on " + b.stompEndpoints());
            assertEquals(0, b.queueSize(Queues.CONSUMER), "signals left on " + b.stompEndpoints());
            // ActiveMQ sometimes closes the socket before its ERROR frame is read (once in CI: "broker closed the
            // connection"): every attempt must be refused, and one is refused as a bad login
            Await.until("the old consumer password refused as a bad login by " + b.stompEndpoints(),
                    Duration.ofSeconds(30), () -> {
                        StompException refused = assertThrows(StompException.class, () -> StompConnection.connect(
                                StompSettings.of(StompEndpoint.parseList(b.stompEndpoints()), BrokerLogins.CONSUMER,
                                        oldPasswords.get(BrokerLogins.CONSUMER))).close());
                        return refused.isAuthentication();
                    });
        }
        String metrics = HttpGets.body("http://127.0.0.1:" + stack.consumers().get(0).httpPort() + "/metrics");
        assertEquals(0, MetricsText.value(metrics, CredentialFiles.RELOAD_FAILURES), metrics);
        double age = MetricsText.value(metrics, CredentialFiles.AGE, "key=\"consumer.s3.secret.key.file\"");
        assertTrue(age >= 0 && age < TIMEOUT.toSeconds(), "the secret key file's age is the time since the rotation: "
                + age);
    }

    /** Each broker restarted in turn, the next one once the supervisor and the consumer read this one's queues again. */
    private void rollingRestart() {
        for (EmbeddedBroker b : stack.brokers()) {
            b.restart();
            Await.until("the supervisor and the consumer subscribed again on " + b.stompEndpoints(), TIMEOUT,
                    () -> b.consumers(Queues.SUPERVISOR) > 0 && b.consumers(Queues.CONSUMER) > 0);
        }
    }
}
