package org.eventindex.producer;

import org.eventindex.config.SecretFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.ProjectVersion;
import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ProducerArgsTest {
    private static final Map<String, String> ENV = Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "AK",
            ProducerArgs.ENV_S3_SECRET_KEY, "s3-secret", ProducerArgs.ENV_STOMP_PASSWORD, "stomp-secret");

    @TempDir
    Path dir;
    /** An existing SPB file (its content is not read by the parser). */
    private String f;

    @BeforeEach
    void spbFile() throws IOException {
        f = Files.writeString(dir.resolve("f.ei.spb"), "not parsed here").toString();
    }

    @Test
    void parsesFullCommandLineWithSecretsFromFilesAndEnvironment() throws Exception {
        Path pw = SecretFile.write(dir.resolve("pw"), "from-file\n");
        ProducerOptions o = ProducerArgs.parse(List.of(f, "--brokers", "a:1,b:2", "--user", "ei",
                "--password-file", pw.toString(), "--s3-endpoint=http://s3.example:8080", "--bucket", "eventindex",
                "--json", "-v"), ENV);
        assertEquals(Path.of(f), o.file());
        assertEquals(List.of(new StompEndpoint("a", 1), new StompEndpoint("b", 2)), o.brokers());
        assertEquals(Queues.SUPERVISOR, o.queue());
        assertEquals("from-file", o.password());
        assertEquals("AK", o.accessKey());
        assertEquals("s3-secret", o.secretKey());
        assertEquals(URI.create("http://s3.example:8080"), o.s3Endpoint());
        assertFalse(o.dryRun());
        List<String> args = List.of(f, "--json", "-v");
        assertTrue(ProducerArgs.wantsJson(args) && ProducerArgs.wantsVerbose(args));
        assertFalse(ProducerArgs.wantsJson(List.of(f)) || ProducerArgs.wantsVerbose(List.of(f)));
        assertFalse(o.toString().contains("s3-secret") || o.toString().contains("from-file"), o.toString());
    }

    @Test
    void badArgumentsAreBadInput() {
        assertCode(ExitCode.BAD_INPUT, List.of("--brokers", "a:1", "--s3-endpoint", "http://h:1", "--bucket", "bkt"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "--s3-endpoint", "http://h:1", "--bucket", "bkt"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "--brokers", "a", "--s3-endpoint", "http://h:1", "--bucket", "b"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "--brokers", "a:1", "--s3-endpoint", "ftp://h", "--bucket", "bkt"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "--brokers", "a:1", "--s3-endpoint", "http://h", "--bucket", "B!"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "g", "--brokers", "a:1", "--s3-endpoint", "http://h", "--bucket",
                "bkt"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "--frobnicate"));
        assertCode(ExitCode.BAD_INPUT, List.of(f, "--bucket"));
    }

    @Test
    void missingOrUnreadableSecretsAreConfigurationErrors() {
        List<String> base = List.of(f, "--brokers", "a:1", "--s3-endpoint", "http://h:1", "--bucket", "bkt");
        ProducerException e = assertThrows(ProducerException.class, () -> ProducerArgs.parse(base, Map.of()));
        assertEquals(ExitCode.CONFIGURATION, e.exitCode());
        assertTrue(e.getMessage().contains(ProducerArgs.ENV_S3_ACCESS_KEY), e.getMessage());

        List<String> withFile = new java.util.ArrayList<>(base);
        withFile.addAll(List.of("--secret-key-file", dir.resolve("missing").toString()));
        e = assertThrows(ProducerException.class, () -> ProducerArgs.parse(withFile, ENV));
        assertEquals(ExitCode.CONFIGURATION, e.exitCode());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());

        List<String> userNoPassword = new java.util.ArrayList<>(base);
        userNoPassword.addAll(List.of("--user", "ei"));
        e = assertThrows(ProducerException.class, () -> ProducerArgs.parse(userNoPassword,
                Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "AK", ProducerArgs.ENV_S3_SECRET_KEY, "x")));
        assertEquals(ExitCode.CONFIGURATION, e.exitCode());
    }

    @Test
    void dryRunNeedsNoBrokersOrSecrets() throws IOException, ProducerException {
        ProducerOptions o = ProducerArgs.parse(List.of(f, "--dry-run", "--s3-endpoint", "https://h",
                "--bucket", "bkt"), Map.of());
        assertTrue(o.dryRun());
        assertEquals(List.of(), o.brokers());
        assertNull(o.secretKey());
        assertTrue(ProducerArgs.wantsHelp(List.of(f, "--help")));
    }

    /** A dry run contacts nothing, so it needs no S3 endpoint and bucket either; the object URL is then unknown. */
    @Test
    void dryRunNeedsNoS3EndpointOrBucket() throws ProducerException {
        ProducerOptions o = ProducerArgs.parse(List.of(f, "--dry-run"), Map.of());
        assertTrue(o.dryRun());
        assertNull(o.s3Endpoint());
        assertNull(o.bucket());

        ProducerException e = assertThrows(ProducerException.class,
                () -> ProducerArgs.parse(List.of(f, "--dry-run", "--s3-endpoint", "http://h:1"), Map.of()));
        assertEquals(ExitCode.BAD_INPUT, e.exitCode());
        assertTrue(e.getMessage().contains("--bucket is required with --dry-run when the other is given"),
                e.getMessage());
        e = assertThrows(ProducerException.class,
                () -> ProducerArgs.parse(List.of(f, "--dry-run", "--bucket", "bkt", "--s3-endpoint", "ftp://h"),
                        Map.of()));
        assertTrue(e.getMessage().contains("--s3-endpoint 'ftp://h' must be http(s)://host[:port]"), e.getMessage());
    }

    @Test
    void withoutDryRunS3EndpointBucketAndBrokersAreRequired() {
        for (String missing : List.of("--s3-endpoint", "--bucket", "--brokers")) {
            List<String> args = new java.util.ArrayList<>(List.of(f, "--brokers", "a:1", "--s3-endpoint",
                    "http://h:1", "--bucket", "bkt"));
            int at = args.indexOf(missing);
            args.subList(at, at + 2).clear();
            ProducerException e = assertThrows(ProducerException.class, () -> ProducerArgs.parse(args, ENV));
            assertEquals(ExitCode.BAD_INPUT, e.exitCode());
            assertTrue(e.getMessage().startsWith(missing + " is required to ")
                    && e.getMessage().contains("(only --dry-run runs without it)"), e.getMessage());
        }
    }

    @Test
    void helpPrintsTheUsageWithTheExitCodesAndExitsZero() {
        Run r = cli("--help");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("Usage: java -jar eventindex-producer.jar FILE.ei.spb"), r.out());
        for (String text : List.of("--brokers", "--retry-deadline", "(default " + RetryPolicy.DEFAULT_DEADLINE
                .toSeconds() + ")", "--dry-run", "--json", "-v, --verbose", "-V, --version", "Exit codes:",
                "4  configuration or authentication error")) {
            assertTrue(r.out().contains(text), text + " in:\n" + r.out());
        }
        assertEquals("", r.err());
        assertEquals(0, cli("-h").code());
    }

    @Test
    void versionPrintsTheProjectVersionAndExitsZero() {
        Run r = cli("--version");
        assertEquals(0, r.code(), r.err());
        assertEquals("eventindex-producer " + ProjectVersion.describe() + System.lineSeparator(), r.out());
        assertFalse(ProjectVersion.describe().contains("${"), ProjectVersion.describe());
    }

    /** Bad arguments are exit 2 (docs/producer.md), the one stderr line naming the option. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "f --brokers a:1 --frobnicate            | bad input: unknown option --frobnicate",
        "f --dry-run --retry-deadline            | bad input: --retry-deadline needs a value",
        "f --dry-run --retry-deadline soon       | bad input: --retry-deadline 'soon' is not a number of seconds",
        "f --dry-run --bucket a --bucket b       | bad input: --bucket given twice",
        "f --dry-run -x                          | bad input: unknown option -x",
        "f --password s3cr3t                     | bad input: --password: secrets are never taken on the command line (any user of the node can read it): give --password-file FILE or EI_STOMP_PASSWORD",
        "f --secret-key=s3cr3t                   | bad input: --secret-key: secrets are never taken on the command line (any user of the node can read it): give --secret-key-file FILE or EI_S3_SECRET_KEY",
    })
    void unknownOptionsAndBadValuesExitTwoNamingTheOption(String line, String message) {
        Run r = cli(line.replaceFirst("^f ", f + " ").split(" "));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("eventindex-producer: " + message), r.err());
        assertTrue(r.err().contains("(see --help)"), r.err());
        assertFalse(r.err().contains("s3cr3t"), "a secret given on the command line is not echoed: " + r.err());
        assertEquals("", r.out());
    }

    /** The walk every picocli command gets: help, version, an unknown option and stray arguments, as typed. */
    @Test
    void helpVersionUnknownOptionAndStrayArgumentsAsTyped() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("java -jar eventindex-producer.jar",
                args -> CommandTreeWalk.capture((o, e) -> new ProducerCli(Map.of(), o, e, RetryPolicy.DEFAULT,
                        Clock.systemUTC()).run(List.of(args)))));
    }

    /** Through bin/eventindex (which sets the variable), the usage names the command as the operator typed it. */
    @Test
    void throughTheLauncherTheUsageNamesTheCommandAsTyped() {
        Map<String, String> env = Map.of(ProducerArgs.ENV_COMMAND, "eventindex producer");
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex producer",
                args -> CommandTreeWalk.capture((o, e) -> new ProducerCli(env, o, e, RetryPolicy.DEFAULT,
                        Clock.systemUTC()).run(List.of(args)))));
        String usage = ProducerArgs.usage(env);
        assertTrue(usage.startsWith("Usage: eventindex producer FILE.ei.spb --brokers"), usage);
        assertFalse(usage.contains(ProducerArgs.JAR_COMMAND), usage);
        assertTrue(usage.contains("\n       eventindex producer FILE.ei.spb --dry-run\n"), usage);
    }

    /** A missing or unreadable input is bad input (2) even without any credential (which would be 4). */
    @Test
    void theInputFileIsCheckedBeforeTheCredentials() throws IOException {
        String missing = dir.resolve("nope.ei.spb").toString();
        Run r = cli(missing, "--brokers", "a:1", "--s3-endpoint", "http://h:1", "--bucket", "bkt");
        assertEquals(ExitCode.BAD_INPUT.code(), r.code(), r.err());
        assertTrue(r.err().contains(missing + ": cannot read SPB file: no such file or directory"), r.err());

        r = cli(dir.toString(), "--brokers", "a:1", "--s3-endpoint", "http://h:1", "--bucket", "bkt");
        assertEquals(ExitCode.BAD_INPUT.code(), r.code(), r.err());
        assertTrue(r.err().contains(dir + ": cannot read SPB file: it is a directory"), r.err());

        // with its input there, the same command line is a configuration error: no S3 access key
        r = cli(f, "--brokers", "a:1", "--s3-endpoint", "http://h:1", "--bucket", "bkt");
        assertEquals(ExitCode.CONFIGURATION.code(), r.code(), r.err());
    }

    /** A secret file others can read is refused naming the option that pointed at it, for each secret option. */
    @ParameterizedTest
    @ValueSource(strings = {"--password-file", "--secret-key-file", "--trust-store-password-file"})
    void anOpenSecretFileIsRefusedNamingItsOption(String option) throws IOException {
        Path secret = SecretFile.write(dir.resolve("secret"), "s");
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        ProducerException e = assertThrows(ProducerException.class, () -> ProducerArgs.parse(List.of(f, "--dry-run",
                option, secret.toString()), ENV));
        assertEquals(ExitCode.CONFIGURATION, e.exitCode());
        assertTrue(e.getMessage().startsWith(option + ": secret file " + secret + " has mode rw-r--r--"),
                e.getMessage());
    }

    private record Run(int code, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ProducerCli(Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), RetryPolicy.DEFAULT, Clock.systemUTC())
                .run(List.of(args));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void assertCode(ExitCode expected, List<String> args) {
        ProducerException e = assertThrows(ProducerException.class, () -> ProducerArgs.parse(args, ENV));
        assertEquals(expected, e.exitCode(), e.getMessage());
    }
}
