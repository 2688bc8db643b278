package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.eventindex.ProjectVersion;
import org.eventindex.config.SecretFile;
import org.eventindex.io.FileReason;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;

/**
 * Parses the producer's command line ({@link #USAGE}). The one command line of the project not parsed by picocli:
 * that costs every grid job ~65 ms of start (docs/decisions/0022); the conventions are the same (exit 2 naming the
 * option, {@code --help}, {@code --version}). Secrets come from files or the environment only, never from
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

    /** How the jar is run in {@link #USAGE}: what grid wrappers type. */
    public static final String JAR_COMMAND = "java -jar eventindex-producer.jar";
    /**
     * Set by the launchers ({@code bin/eventindex producer}) to the command as the operator types it, e.g.
     * {@code eventindex producer}: the usage then names that instead of {@link #JAR_COMMAND}.
     */
    public static final String ENV_COMMAND = "EVENTINDEX_PRODUCER_COMMAND";

    public static final String USAGE = """
            Usage: java -jar eventindex-producer.jar FILE.ei.spb --brokers [stomp+ssl://]HOST:PORT[,...]
                     --s3-endpoint http://HOST:PORT --bucket BUCKET [options]
                   java -jar eventindex-producer.jar FILE.ei.spb --dry-run
                     [--s3-endpoint http://HOST:PORT --bucket BUCKET] [options]

            Validates an EventIndex SPB file, stores it as one S3 object and sends one control message to the
            supervisor's STOMP queue.

              --brokers LIST          STOMP brokers HOST:PORT,... (a name of several addresses, e.g. a DNS alias,
                                      is several brokers): the message goes through one, a random one first,
                                      the next on failure; prefix every entry with stomp+ssl:// for TLS
              --trust-store FILE      PKCS12 or JKS trust store for TLS brokers and an https S3 endpoint
                                      (default: the JVM's)
              --trust-store-password-file FILE
                                      file holding the trust store password (or env %s)
              --queue DEST            destination (default %s)
              --user USER             STOMP login
              --password-file FILE    file holding the STOMP passcode (or env %s)
              --s3-endpoint URL       S3 service, http(s)://host:port (path-style access, region us-east-1)
              --bucket BUCKET         bucket for the object (must exist)
              --access-key KEY        S3 access key (or env %s)
              --secret-key-file FILE  file holding the S3 secret key (or env %s)
              --retry-deadline SECS   total time in which failed remote steps are retried with capped
                                      exponential backoff and jitter (default %d)
              --dry-run               validate and print the object key and message; store and send nothing,
                                      contact nothing: --brokers, --s3-endpoint, --bucket and secrets are
                                      optional (with --s3-endpoint and --bucket the object URL is printed too)
              -v, --verbose           print per input file (GUID) events and unique events, totals and
                                      bytes per event; log each step to stderr
              --json                  print the result as one JSON object on stdout
              -h, --help              this text
              -V, --version           print the version and exit

            Exit codes:
              0  success: object stored and message acknowledged by the broker
              1  internal error (a bug; see stderr)
              2  bad input: invalid SPB file or bad arguments; nothing was uploaded or sent
              3  transient failure: network, broker or S3 unavailable; retry later
              4  configuration or authentication error: credentials, bucket, secret files, TLS trust
            """.formatted(ENV_TRUST_STORE_PASSWORD, Queues.SUPERVISOR, ENV_STOMP_PASSWORD, ENV_S3_ACCESS_KEY,
            ENV_S3_SECRET_KEY, RetryPolicy.DEFAULT_DEADLINE.toSeconds());

    private static final Set<String> FLAGS = Set.of("--dry-run", "-v", "--verbose", "--json", "-h", "--help", "-V",
            "--version");
    /**
     * Secrets that a wrapper might try to pass as values: refused with the option to use instead, since any user of
     * the worker node reads a command line in {@code /proc/PID/cmdline} (the value itself is never echoed).
     */
    private static final Map<String, String> SECRET_OPTIONS = Map.of(
            "--password", "--password-file FILE or " + ENV_STOMP_PASSWORD,
            "--passcode", "--password-file FILE or " + ENV_STOMP_PASSWORD,
            "--secret-key", "--secret-key-file FILE or " + ENV_S3_SECRET_KEY,
            "--trust-store-password", "--trust-store-password-file FILE or " + ENV_TRUST_STORE_PASSWORD);
    private static final Set<String> VALUED = Set.of("--brokers", "--queue", "--user", "--password-file",
            "--s3-endpoint", "--bucket", "--access-key", "--secret-key-file", "--trust-store",
            "--trust-store-password-file", "--retry-deadline");
    // S3 bucket naming rules (no upper case, 3-63 characters).
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private ProducerArgs() {
    }

    /** True when the arguments ask for help (checked before anything else is validated). */
    /** {@link #USAGE} naming the command as typed: {@link #ENV_COMMAND} when a launcher set it, else the jar's. */
    public static String usage(Map<String, String> env) {
        String typed = env.getOrDefault(ENV_COMMAND, "").strip();
        return typed.isEmpty() ? USAGE : USAGE.replace(JAR_COMMAND, typed);
    }

    public static boolean wantsHelp(List<String> args) {
        return args.contains("-h") || args.contains("--help");
    }

    /** True when the result (or the error) is to be printed as JSON; read before parsing, so errors honour it. */
    public static boolean wantsJson(List<String> args) {
        return args.contains("--json");
    }

    /** True when per-file figures are to be printed; read before parsing, so errors honour it. */
    public static boolean wantsVerbose(List<String> args) {
        return args.contains("-v") || args.contains("--verbose");
    }

    /** True when the arguments ask for the version (checked after help, before anything else is validated). */
    public static boolean wantsVersion(List<String> args) {
        return args.contains("-V") || args.contains("--version");
    }

    /** The line {@code --version} prints: the program and the project version. */
    public static String version() {
        return "eventindex-producer " + ProjectVersion.describe();
    }

    /**
     * @throws ProducerException {@link ExitCode#BAD_INPUT} for bad or missing arguments,
     *         {@link ExitCode#CONFIGURATION} for missing or unreadable secrets
     */
    public static ProducerOptions parse(List<String> args, Map<String, String> env) throws ProducerException {
        requireNonNull(args, "args is null");
        requireNonNull(env, "env is null");
        Map<String, String> values = new HashMap<>();
        Set<String> flags = new java.util.HashSet<>();
        String file = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (SECRET_OPTIONS.containsKey(name)) {
                throw badArgs(name + ": secrets are never taken on the command line (any user of the node can read"
                        + " it): give " + SECRET_OPTIONS.get(name));
            }
            if (FLAGS.contains(name) && value == null) {
                flags.add(name);
            } else if (VALUED.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw badArgs(name + " needs a value");
                    }
                    value = args.get(++i);
                }
                if (values.put(name, value) != null) {
                    throw badArgs(name + " given twice");
                }
            } else if (arg.startsWith("-") && arg.length() > 1) {
                throw badArgs("unknown option " + name);
            } else if (file == null) {
                file = arg;
            } else {
                throw badArgs("only one SPB file per run; got '" + file + "' and '" + arg + "'");
            }
        }
        if (file == null) {
            throw badArgs("no SPB file given");
        }
        // before the credentials: a grid job with a wrong file name is bad input (exit 2), whatever its secrets
        checkReadable(Path.of(file));
        boolean dryRun = flags.contains("--dry-run");
        URI s3 = null;
        String bucket = null;
        if (!dryRun || values.containsKey("--s3-endpoint") || values.containsKey("--bucket")) {
            // A dry run contacts nothing: without both it only cannot name the object's URL.
            String why = dryRun ? " with --dry-run when the other is given (the object URL needs both)"
                    : " to store the object (only --dry-run runs without it)";
            s3 = s3Endpoint(require(values, "--s3-endpoint", why));
            bucket = require(values, "--bucket", why);
            if (!BUCKET.matcher(bucket).matches()) {
                throw badArgs("--bucket '" + bucket + "' is not a valid S3 bucket name");
            }
        }
        List<StompEndpoint> brokers = List.of();
        boolean tls = false;
        java.time.Duration deadline = retryDeadline(values.get("--retry-deadline"));
        Path trustStore = values.containsKey("--trust-store") ? Path.of(values.get("--trust-store")) : null;
        String trustStorePassword = secret(values, "--trust-store-password-file", env, ENV_TRUST_STORE_PASSWORD);
        String accessKey = values.getOrDefault("--access-key", env.get(ENV_S3_ACCESS_KEY));
        String secretKey = secret(values, "--secret-key-file", env, ENV_S3_SECRET_KEY);
        String user = values.get("--user");
        String password = secret(values, "--password-file", env, ENV_STOMP_PASSWORD);
        if (!dryRun) {
            String list = require(values, "--brokers", " to send the message (only --dry-run runs without it)");
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
        return new ProducerOptions(Path.of(file), brokers, values.getOrDefault("--queue", Queues.SUPERVISOR), user,
                password, s3, bucket, accessKey, secretKey, dryRun, deadline,
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

    private static String require(Map<String, String> values, String name, String why) throws ProducerException {
        String v = values.get(name);
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

    /** The SPB file exists, is a file and can be opened; else bad input naming it and why. */
    private static void checkReadable(Path file) throws ProducerException {
        if (Files.isDirectory(file)) {
            throw new ProducerException(ExitCode.BAD_INPUT, file + ": cannot read SPB file: it is a directory");
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.size();
        } catch (IOException e) {
            throw new ProducerException(ExitCode.BAD_INPUT, file + ": cannot read SPB file: " + FileReason.of(e), e);
        }
    }

    /**
     * From the file of {@code option} if given, else from the environment; trailing line breaks and blanks are
     * dropped. Errors name the option.
     */
    private static String secret(Map<String, String> values, String option, Map<String, String> env, String envName)
            throws ProducerException {
        String file = values.get(option);
        if (file == null) {
            return env.get(envName);
        }
        try {
            return SecretFile.read(Path.of(file), option);
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
