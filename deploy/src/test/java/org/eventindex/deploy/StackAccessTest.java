package org.eventindex.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The files {@code bin/demo --keep} writes: what bash reads from the environment file, and the logins file's mode. */
final class StackAccessTest {
    @TempDir
    Path dir;

    private StackAccess access(Path secrets) {
        return new StackAccess(4242, "127.0.0.1:61613", URI.create("http://127.0.0.1:9000"), "eventindex",
                "eventindex-local", URI.create("hdfs://127.0.0.1:8020"), "/eventindex/datasets", "127.0.0.2:7051",
                URI.create("http://127.0.0.1:8080"), List.of(URI.create("http://127.0.0.1:8081"),
                URI.create("http://127.0.0.1:8082")), secrets);
    }

    @Test
    void theKeptStackPrintsTheConsoleUrl() {
        List<String> lines = access(dir).describe(dir.resolve("demo.env"), "producer.jar");
        assertTrue(lines.contains("Console:         http://127.0.0.1:8080/  (the supervisor's web console: datasets,"
                + " consumers, plots; docs/console.md)"), String.join("\n", lines));
    }

    @Test
    void bashReadsEveryVariableBackEvenFromAFolderWithBlanksAndQuotes() throws Exception {
        Path secrets = Files.createDirectories(dir.resolve("it's a \"work\" $HOME folder").resolve("secrets"));
        StackAccess access = access(secrets);
        Path env = access.writeEnvironment(dir.resolve("demo.env"));

        List<String> names = new ArrayList<>(access.environment().keySet());
        StringBuilder script = new StringBuilder("source \"$0\"");
        names.forEach(n -> script.append(" && printf '%s\\n' \"$").append(n).append('"'));
        Process bash = new ProcessBuilder("bash", "-c", script.toString(), env.toString()).redirectErrorStream(true)
                .start();
        List<String> values = List.of(new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .split("\n"));
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash did not exit");
        assertEquals(0, bash.exitValue(), String.join("\n", values));
        assertEquals(new ArrayList<>(access.environment().values()), values);
        Map<String, String> e = access.environment();
        assertEquals(secrets.resolve("producer.password").toString(), e.get("EI_PRODUCER_PASSWORD_FILE"));
        assertEquals(secrets.resolve("s3-secret-key").toString(), e.get("EI_S3_SECRET_KEY_FILE"));
        assertEquals("http://127.0.0.1:8081 http://127.0.0.1:8082", e.get("EI_CONSUMER_URLS"));
        assertFalse(Files.exists(dir.resolve("demo.env.tmp")), "temporary file left behind");
    }

    @Test
    void theLoginsFileIsOwnerOnlyAndNamesEverySecretFile() throws Exception {
        Path secrets = Files.createDirectories(dir.resolve("secrets"));
        BrokerLogins logins = BrokerLogins.random().writeTo(secrets);
        Path file = access(secrets).writeLogins(logins, "s3-secret-value");

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String text = Files.readString(file);
        for (String login : List.of(BrokerLogins.PRODUCER, BrokerLogins.OPERATOR, BrokerLogins.SUPERVISOR,
                BrokerLogins.CONSUMER, BrokerLogins.ADMIN)) {
            assertTrue(text.contains(logins.password(login) + " "), login + "'s password missing");
            assertTrue(text.contains(BrokerLogins.passwordFile(secrets, login).toString()), login + "'s file missing");
        }
        assertTrue(text.contains("eventindex-local"), "S3 access key missing");
        assertTrue(text.contains("s3-secret-value"), "S3 secret key missing");
    }

    @Test
    void aShellWordIsQuotedOnlyWhenItMustBe() {
        assertEquals("/opt/ei/producer/target/eventindex-producer.jar",
                StackAccess.shellWord("/opt/ei/producer/target/eventindex-producer.jar"));
        assertEquals("'/my jars/it'\\''s.jar'", StackAccess.shellWord("/my jars/it's.jar"));
    }
}
