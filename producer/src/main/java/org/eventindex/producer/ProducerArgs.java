package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.eventindex.cli.ProjectVersion;
import org.eventindex.config.SecretFile;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Parses the producer's command line ({@link #usage}) with picocli, then checks it into {@link ProducerOptions}.
 * Secrets come from files or the environment only, never from
 * the command line (which other users of a grid worker node can read).
 */
public final class ProducerArgs {
    public static final String ENV_STOMP_PASSWORD = "EI_STOMP_PASSWORD";
    public static final String ENV_S3_ACCESS_KEY = "EI_S3_ACCESS_KEY";
    public static final String ENV_S3_SECRET_KEY = "EI_S3_SECRET_KEY";
    public static final String ENV_TRUST_STORE_PASSWORD = "EI_TRUST_STORE_PASSWORD";
    /** Scheme prefix of TLS broker endpoints in {@code --brokers}. */
    public static final String TLS_SCHEME = "stomp+ssl://";
    /** Scheme prefix of plain broker endpoints in {@code --brokers} (optional). */
    public static final String PLAIN_SCHEME = "stomp://";

    // S3 bucket naming rules (no upper case, 3-63 characters).
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private ProducerArgs() {
    }

    /**
     * The producer's command line as picocli declares it: names and help text of every option. Values stay strings
     * here; {@link #options} checks them, so that each check reports the producer's exit code.
     */
    @Command(name = "eventindex-producer", versionProvider = ProjectVersion.class, sortOptions = false,
            usageHelpWidth = 100, customSynopsis = {
                "java -jar eventindex-producer.jar FILE.ei.spb --brokers [stomp+ssl://]HOST:PORT[,...]",
                "         --s3-endpoint http://HOST:PORT --bucket BUCKET [options]",
                "java -jar eventindex-producer.jar FILE.ei.spb --dry-run",
                "         [--s3-endpoint http://HOST:PORT --bucket BUCKET] [options]"},
            description = {"", "Validates an EventIndex SPB file, stores it as one S3 object and sends one control"
                    + " message to the supervisor's STOMP queue.", ""},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {
                "0:success: object stored and message acknowledged by the broker",
                "1:internal error (a bug; see stderr)",
                "2:bad input: invalid SPB file or bad arguments; nothing was uploaded or sent",
                "3:transient failure: network, broker or S3 unavailable; retry later",
                "4:configuration or authentication error: credentials, bucket, secret files, TLS trust"})
    static final class Line {
        @Parameters(paramLabel = "FILE.ei.spb", arity = "0..*", description = "the SPB file to publish (exactly one)")
        List<String> files = new ArrayList<>();
        @Option(names = "--brokers", paramLabel = "LIST", description = {"STOMP brokers HOST:PORT,..., tried in order"
                + " (every address of each host name); prefix every entry with " + TLS_SCHEME + " for TLS"})
        String brokers;
        @Option(names = "--trust-store", paramLabel = "FILE", description = "PKCS12 or JKS trust store for TLS brokers"
                + " and an https S3 endpoint (default: the JVM's)")
        String trustStore;
        @Option(names = "--trust-store-password-file", paramLabel = "FILE",
                description = "file holding the trust store password (or env " + ENV_TRUST_STORE_PASSWORD + ")")
        String trustStorePasswordFile;
        @Option(names = "--queue", paramLabel = "DEST", description = "destination (default " + Queues.SUPERVISOR
                + ")")
        String queue;
        @Option(names = "--user", paramLabel = "USER", description = "STOMP login")
        String user;
        @Option(names = "--password-file", paramLabel = "FILE",
                description = "file holding the STOMP passcode (or env " + ENV_STOMP_PASSWORD + ")")
        String passwordFile;
        @Option(names = "--s3-endpoint", paramLabel = "URL",
                description = "S3 service, http(s)://host:port (path-style access, region us-east-1)")
        String s3Endpoint;
        @Option(names = "--bucket", paramLabel = "BUCKET", description = "bucket for the object (must exist)")
        String bucket;
        @Option(names = "--access-key", paramLabel = "KEY", description = "S3 access key (or env " + ENV_S3_ACCESS_KEY
                + ")")
        String accessKey;
        @Option(names = "--secret-key-file", paramLabel = "FILE",
                description = "file holding the S3 secret key (or env " + ENV_S3_SECRET_KEY + ")")
        String secretKeyFile;
        @Option(names = "--retry-deadline", paramLabel = "SECS", description = "total time in which failed remote"
                + " steps are retried with capped exponential backoff and jitter (default 300)")
        String retryDeadline;
        @Option(names = "--dry-run", description = "validate and print the object key and message; store and send"
                + " nothing, contact nothing: --brokers, --s3-endpoint, --bucket and secrets are optional (with"
                + " --s3-endpoint and --bucket the object URL is printed too)")
        boolean dryRun;
        @Option(names = {"-v", "--verbose"}, description = "print per input file (GUID) events and unique events,"
                + " totals and bytes per event; log each step to stderr")
        boolean verbose;
        @Option(names = "--json", description = "print the result as one JSON object on stdout")
        boolean json;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;
        @Option(names = {"-V", "--version"}, versionHelp = true, description = "print the version and exit")
        boolean version;
    }

    /** The usage text of {@code --help}. */
    public static String usage() {
        return commandLine(new Line()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** The version line of {@code --version}. */
    public static String version() {
        return String.join(System.lineSeparator(), commandLine(new Line()).getCommandSpec().version())
                + System.lineSeparator();
    }

    /** The command line of a run; {@code --help} and {@code --version} are flags of the result. */
    static Line parseLine(List<String> args) throws ProducerException {
        requireNonNull(args, "args is null");
        Line line = new Line();
        try {
            commandLine(line).parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            throw badArgs(e.getMessage());
        }
        return line;
    }

    private static CommandLine commandLine(Line line) {
        CommandLine cl = new CommandLine(line);
        cl.setExpandAtFiles(false);
        return cl;
    }

    /**
     * @throws ProducerException {@link ExitCode#BAD_INPUT} for bad or missing arguments,
     *         {@link ExitCode#CONFIGURATION} for missing or unreadable secrets
     */
    public static ProducerOptions parse(List<String> args, Map<String, String> env) throws ProducerException {
        return options(parseLine(args), env);
    }

    static ProducerOptions options(Line line, Map<String, String> env) throws ProducerException {
        requireNonNull(env, "env is null");
        if (line.files.isEmpty()) {
            throw badArgs("no SPB file given");
        }
        if (line.files.size() > 1) {
            throw badArgs("only one SPB file per run; got '" + line.files.get(0) + "' and '" + line.files.get(1)
                    + "'");
        }
        String file = line.files.get(0);
        boolean dryRun = line.dryRun;
        URI s3 = null;
        String bucket = null;
        if (!dryRun || line.s3Endpoint != null || line.bucket != null) {
            // A dry run contacts nothing: without both it only cannot name the object's URL.
            String why = dryRun ? " with --dry-run when the other is given (the object URL needs both)"
                    : " to store the object (only --dry-run runs without it)";
            s3 = s3Endpoint(require(line.s3Endpoint, "--s3-endpoint", why));
            bucket = require(line.bucket, "--bucket", why);
            if (!BUCKET.matcher(bucket).matches()) {
                throw badArgs("--bucket '" + bucket + "' is not a valid S3 bucket name");
            }
        }
        List<StompEndpoint> brokers = List.of();
        boolean tls = false;
        java.time.Duration deadline = retryDeadline(line.retryDeadline);
        Path trustStore = line.trustStore != null ? Path.of(line.trustStore) : null;
        String trustStorePassword = secret(line.trustStorePasswordFile, env, ENV_TRUST_STORE_PASSWORD);
        String accessKey = line.accessKey != null ? line.accessKey : env.get(ENV_S3_ACCESS_KEY);
        String secretKey = secret(line.secretKeyFile, env, ENV_S3_SECRET_KEY);
        String user = line.user;
        String password = secret(line.passwordFile, env, ENV_STOMP_PASSWORD);
        if (!dryRun) {
            String list = require(line.brokers, "--brokers", " to send the message (only --dry-run runs without it)");
            tls = isTls(list);
            try {
                brokers = StompEndpoint.parseList(stripSchemes(list));
            } catch (IllegalArgumentException e) {
                throw badArgs("--brokers: " + e.getMessage());
            }
            if (trustStore != null && !tls && !"https".equals(s3.getScheme())) {
                throw badArgs("--trust-store is only used with TLS brokers (" + TLS_SCHEME + "HOST:PORT) or an"
                        + " https:// S3 endpoint");
            }
            if (accessKey == null || accessKey.isBlank()) {
                throw config("no S3 access key: give --access-key or set " + ENV_S3_ACCESS_KEY);
            }
            if (secretKey == null) {
                throw config("no S3 secret key: give --secret-key-file or set " + ENV_S3_SECRET_KEY);
            }
            if (user != null && password == null) {
                throw config("--user " + user + " needs a passcode: give --password-file or set " + ENV_STOMP_PASSWORD);
            }
        }
        return new ProducerOptions(Path.of(file), brokers, line.queue != null ? line.queue : Queues.SUPERVISOR, user,
                password, s3, bucket, accessKey, secretKey, dryRun, line.verbose, line.json, deadline,
                new ProducerOptions.BrokerTls(tls, trustStore, trustStorePassword));
    }

    /** True when every entry has the TLS scheme, false when none has; a mix is refused. */
    private static boolean isTls(String list) throws ProducerException {
        long secure = 0;
        long total = 0;
        for (String part : list.split(",")) {
            total++;
            if (part.strip().startsWith(TLS_SCHEME)) {
                secure++;
            }
        }
        if (secure != 0 && secure != total) {
            throw badArgs("--brokers mixes " + TLS_SCHEME + " and plain endpoints: use one kind");
        }
        return secure > 0;
    }

    private static String stripSchemes(String list) {
        StringBuilder out = new StringBuilder();
        for (String part : list.split(",")) {
            String p = part.strip();
            if (p.startsWith(TLS_SCHEME)) {
                p = p.substring(TLS_SCHEME.length());
            } else if (p.startsWith(PLAIN_SCHEME)) {
                p = p.substring(PLAIN_SCHEME.length());
            }
            out.append(out.length() == 0 ? "" : ",").append(p);
        }
        return out.toString();
    }

    private static java.time.Duration retryDeadline(String value) throws ProducerException {
        if (value == null) {
            return null;
        }
        try {
            long seconds = Long.parseLong(value.strip());
            if (seconds < 0 || seconds > 86_400) {
                throw badArgs("--retry-deadline " + value + " must be between 0 and 86400 seconds");
            }
            return java.time.Duration.ofSeconds(seconds);
        } catch (NumberFormatException e) {
            throw badArgs("--retry-deadline '" + value + "' is not a number of seconds");
        }
    }

    private static String require(String v, String name, String why) throws ProducerException {
        if (v == null || v.isBlank()) {
            throw badArgs(name + " is required" + why);
        }
        return v;
    }

    private static URI s3Endpoint(String value) throws ProducerException {
        try {
            URI uri = new URI(value);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getPath() != null && !uri.getPath().isEmpty() && !"/".equals(uri.getPath())
                    || uri.getQuery() != null || uri.getUserInfo() != null) {
                throw badArgs("--s3-endpoint '" + value + "' must be http(s)://host[:port]");
            }
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), null, null, null);
        } catch (URISyntaxException e) {
            throw badArgs("--s3-endpoint '" + value + "' is not a URL: " + e.getReason());
        }
    }

    /** From the file if given, else from the environment; trailing line breaks and blanks are dropped. */
    private static String secret(String file, Map<String, String> env, String envName) throws ProducerException {
        if (file == null) {
            return env.get(envName);
        }
        try {
            return SecretFile.read(Path.of(file), "secret file option");
        } catch (IOException | IllegalArgumentException e) {
            throw config(e.getMessage());
        }
    }

    private static ProducerException badArgs(String message) {
        return new ProducerException(ExitCode.BAD_INPUT, message + " (see --help)");
    }

    private static ProducerException config(String message) {
        return new ProducerException(ExitCode.CONFIGURATION, message);
    }
}
