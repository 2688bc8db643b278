package org.eventindex.deploy;

import org.eventindex.config.SecretFile;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a program outside the demo's JVM needs to use a running {@link EmbeddedStack}: its endpoints and the files
 * of its logins. {@link #writeEnvironment} writes them as a file a shell can {@code source}, {@link #writeLogins}
 * lists every login beside the secret files (mode 0600, one per secret, as {@code --password-file} and
 * {@code --secret-key-file} take them), and {@link #describe} is what {@code bin/demo --keep} prints.
 *
 * @param pid            the process that runs the stack
 * @param consumerHttp   the consumers' operations servers, in the order of their ids (consumer-1 first)
 */
public record StackAccess(long pid, String brokers, URI s3Endpoint, String bucket, String s3AccessKey,
                          URI hdfsUri, String hdfsRoot, String kuduMasters, URI supervisorHttp, List<URI> consumerHttp,
                          Path secretsDir) {
    /** The file, in {@link #secretsDir}, that lists every login. */
    public static final String LOGINS_FILE = "logins.txt";
    /** What the producer is run as: the jar of {@code producer/target}, or any copy of it. */
    static final String PRODUCER_JAR = "producer/target/eventindex-producer.jar";

    public StackAccess {
        Objects.requireNonNull(brokers, "brokers is null");
        Objects.requireNonNull(s3Endpoint, "s3Endpoint is null");
        Objects.requireNonNull(bucket, "bucket is null");
        Objects.requireNonNull(s3AccessKey, "s3AccessKey is null");
        Objects.requireNonNull(hdfsUri, "hdfsUri is null");
        Objects.requireNonNull(hdfsRoot, "hdfsRoot is null");
        Objects.requireNonNull(kuduMasters, "kuduMasters is null");
        Objects.requireNonNull(supervisorHttp, "supervisorHttp is null");
        consumerHttp = List.copyOf(consumerHttp);
        Objects.requireNonNull(secretsDir, "secretsDir is null");
    }

    /** The access to {@code stack}, run by this process. */
    public static StackAccess of(EmbeddedStack stack) {
        List<URI> consumers = stack.consumers().stream().map(c -> local(c.httpPort())).toList();
        ProducerLauncher.ProducerEndpoints producer = stack.producerEndpoints();
        return new StackAccess(ProcessHandle.current().pid(), producer.brokers(), URI.create(producer.s3Endpoint()),
                producer.bucket(), producer.accessKey(), stack.hdfs().uri(), stack.hdfsRoot(), stack.kuduMasters(),
                local(stack.supervisor().httpPort()), consumers, stack.secretsDir());
    }

    private static URI local(int port) {
        return URI.create("http://127.0.0.1:" + port);
    }

    public Path s3SecretKeyFile() {
        return secretsDir.resolve("s3-secret-key");
    }

    public Path passwordFile(String login) {
        return BrokerLogins.passwordFile(secretsDir, login);
    }

    /**
     * The variables of {@link #writeEnvironment}, in order. {@code EI_S3_ACCESS_KEY} is also what the producer and
     * the consumer read when {@code --access-key} or their key is not given.
     */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("EI_DEMO_PID", Long.toString(pid));
        env.put("EI_BROKERS", brokers);
        env.put("EI_S3_ENDPOINT", s3Endpoint.toString());
        env.put("EI_BUCKET", bucket);
        env.put("EI_S3_ACCESS_KEY", s3AccessKey);
        env.put("EI_S3_SECRET_KEY_FILE", s3SecretKeyFile().toString());
        env.put("EI_PRODUCER_USER", BrokerLogins.PRODUCER);
        env.put("EI_PRODUCER_PASSWORD_FILE", passwordFile(BrokerLogins.PRODUCER).toString());
        env.put("EI_OPERATOR_USER", BrokerLogins.OPERATOR);
        env.put("EI_OPERATOR_PASSWORD_FILE", passwordFile(BrokerLogins.OPERATOR).toString());
        env.put("EI_LOGINS_FILE", secretsDir.resolve(LOGINS_FILE).toString());
        env.put("EI_HDFS_URI", hdfsUri.toString());
        env.put("EI_HDFS_ROOT", hdfsRoot);
        env.put("EI_KUDU_MASTER", kuduMasters);
        env.put("EI_SUPERVISOR_URL", supervisorHttp.toString());
        env.put("EI_CONSUMER_URLS", String.join(" ", consumerHttp.stream().map(URI::toString).toList()));
        return env;
    }

    /** The producer's command line for {@code spbFile}, every option written out in the environment's variables. */
    public static String producerCommand(String jar, String spbFile) {
        return "java -jar " + jar + " " + spbFile + " --brokers \"$EI_BROKERS\" --s3-endpoint \"$EI_S3_ENDPOINT\""
                + " --bucket \"$EI_BUCKET\" --user \"$EI_PRODUCER_USER\" --password-file \"$EI_PRODUCER_PASSWORD_FILE\""
                + " --access-key \"$EI_S3_ACCESS_KEY\" --secret-key-file \"$EI_S3_SECRET_KEY_FILE\"";
    }

    /** The operator's command that registers a dataset manifest, in the environment's variables. */
    public static String registerManifestCommand(String manifestFile) {
        return "bin/eventindex supervisor register-manifest --brokers \"$EI_BROKERS\" --file " + manifestFile
                + " --user \"$EI_OPERATOR_USER\" --password-file \"$EI_OPERATOR_PASSWORD_FILE\"";
    }

    /**
     * Writes {@link #environment()} as {@code export NAME='value'} lines with the producer and operator commands as
     * comments, replacing {@code file} in one step (a reader never sees half of it). It holds no secret, only the
     * secret files' paths.
     */
    public Path writeEnvironment(Path file) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("# Endpoints and login files of the EventIndex demo stack (bin/demo --keep, pid ").append(pid)
                .append("); valid while it runs.\n");
        sb.append("#   source ").append(file.toAbsolutePath()).append('\n');
        sb.append("# A producer, one SPB file per run:\n#   ").append(producerCommand(PRODUCER_JAR, "FILE.ei.spb"))
                .append('\n');
        sb.append("# A dataset's manifest (bin/eventindex generate writes one):\n#   ")
                .append(registerManifestCommand("NAME.manifest.json")).append('\n');
        environment().forEach((k, v) -> sb.append("export ").append(k).append('=').append(shellQuote(v)).append('\n'));
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
        return Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Writes {@link #LOGINS_FILE} into {@link #secretsDir}, mode 0600: each broker login (user, password, its
     * password file) and the S3 keys.
     */
    public Path writeLogins(BrokerLogins logins, String s3SecretKey) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("# Logins of the EventIndex demo stack (bin/demo --keep, pid ").append(pid).append(").\n");
        sb.append("# Each secret is also alone in a mode-0600 file of this folder, the form --password-file,\n");
        sb.append("# --secret-key-file and the daemons' *.password.file / *.secret.key.file keys take.\n");
        sb.append(String.format("%-22s %-16s %-34s %s%n", "# what", "user", "password / secret key", "file"));
        for (String login : List.of(BrokerLogins.PRODUCER, BrokerLogins.OPERATOR, BrokerLogins.SUPERVISOR,
                BrokerLogins.CONSUMER, BrokerLogins.ADMIN)) {
            sb.append(String.format("%-22s %-16s %-34s %s%n", "broker " + brokers, login, logins.password(login),
                    passwordFile(login)));
        }
        sb.append(String.format("%-22s %-16s %-34s %s%n", "s3 " + s3Endpoint.getAuthority(), s3AccessKey, s3SecretKey,
                s3SecretKeyFile()));
        return SecretFile.write(secretsDir.resolve(LOGINS_FILE), sb.toString());
    }

    /** The lines {@code bin/demo --keep} prints: every endpoint, the login and environment files, the commands. */
    public List<String> describe(Path environmentFile, String producerJar) {
        List<String> lines = new ArrayList<>();
        lines.add("STOMP brokers:   " + brokers);
        lines.add("S3:              " + s3Endpoint + "  bucket " + bucket);
        lines.add("HDFS:            " + hdfsUri + "  datasets under " + hdfsRoot);
        lines.add("Kudu master:     " + kuduMasters);
        lines.add("Console:         " + supervisorHttp + "/  (the supervisor's web console: datasets, consumers,"
                + " plots; docs/console.md)");
        lines.add("Supervisor ops:  " + supervisorHttp + "  (/datasets, /health, /ready, /metrics)");
        for (int i = 0; i < consumerHttp.size(); i++) {
            lines.add("Consumer ops:    " + consumerHttp.get(i) + "  (consumer-" + (i + 1) + ")");
        }
        lines.add("Logins:          " + secretsDir.resolve(LOGINS_FILE)
                + "  (mode 0600; each secret also alone in a 0600 file beside it)");
        lines.add("Environment:     source " + environmentFile.toAbsolutePath());
        lines.add("then a producer: " + producerCommand(shellWord(producerJar), "FILE.ei.spb"));
        lines.add("and a manifest:  " + registerManifestCommand("NAME.manifest.json"));
        return lines;
    }

    /** {@code value} as one shell word: as it is when it holds no character a shell treats specially. */
    static String shellWord(String value) {
        return value.matches("[A-Za-z0-9_@%+=:,./-]+") ? value : shellQuote(value);
    }

    /** {@code value} in single quotes, safe for any shell. */
    public static String shellQuote(String value) {
        return "'" + value.replace("'", "'\\''") + "'";
    }
}
