package org.eventindex.supervisor;

import org.eventindex.message.Json;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;

import org.eventindex.config.SecretFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Command line of the supervisor:
 * <pre>
 *   supervisor run --config supervisor.properties
 *   supervisor register-manifest --brokers host:port[,host:port] --file manifest.json [--queue Q] [--user U]
 *   supervisor resignal --brokers host:port[,host:port] --dataset NAME [--queue Q] [--user U]
 *   supervisor invalidate --brokers host:port[,host:port] --dataset NAME --url s3://... --reason TEXT
 *   supervisor config-keys
 * </pre>
 * The STOMP passcode of the client commands comes from {@code EI_STOMP_PASSWORD} or {@code --password-file}.
 * Exit codes: 0 done, 1 failed (the message says why), 2 bad usage.
 */
public final class SupervisorMain {
    private static final String USAGE = String.join("\n",
            "usage:",
            "  supervisor run --config supervisor.properties",
            "  supervisor register-manifest --brokers host:port[,host:port] --file manifest.json"
                    + " [--queue Q] [--user U] [--password-file F]",
            "  supervisor resignal --brokers host:port[,host:port] --dataset NAME"
                    + " [--queue Q] [--user U] [--password-file F]",
            "  supervisor invalidate --brokers host:port[,host:port] --dataset NAME --url s3://host:port/bucket/key"
                    + " --reason TEXT [--queue Q] [--user U] [--password-file F]",
            "  supervisor config-keys",
            "The STOMP passcode is read from --password-file or the environment variable "
                    + SupervisorConfig.ENV_STOMP_PASSWORD + ".");

    private SupervisorMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    /** Runs a command; returns the exit code. {@code run} blocks until the JVM is asked to stop. */
    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        if (args.length == 0) {
            err.println(USAGE);
            return 2;
        }
        Map<String, String> opts;
        try {
            opts = options(args);
        } catch (IllegalArgumentException e) {
            err.println("supervisor: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        try {
            switch (args[0]) {
                case "run": {
                    String file = required(opts, "config");
                    SupervisorConfig config;
                    try {
                        config = SupervisorConfig.load(Path.of(file), env);
                    } catch (IOException | RuntimeException e) {
                        // exit 2, like the consumer: the operator's file is wrong, not the machine
                        err.println("supervisor: bad configuration: " + e.getMessage());
                        return 2;
                    }
                    return daemon(config);
                }
                case "register-manifest":
                    return registerManifest(opts, env, out);
                case "resignal":
                    return resignal(opts, env, out);
                case "invalidate":
                    return invalidate(opts, env, out);
                case "config-keys":
                    for (org.eventindex.config.ConfigKey k : SupervisorConfig.KEYS) {
                        out.println(k.name() + " = " + k.defaultValue() + "\n    " + k.doc()
                                + (k.envVar() == null ? "" : " (environment: " + k.envVar() + ")"));
                    }
                    return 0;
                default:
                    err.println("supervisor: unknown command '" + args[0] + "'");
                    err.println(USAGE);
                    return 2;
            }
        } catch (UsageException e) {
            err.println("supervisor: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            err.println("supervisor " + args[0] + " failed: " + e.getMessage());
            return 1;
        }
    }

    private static int daemon(SupervisorConfig config) throws IOException {
        Supervisor supervisor = new Supervisor(config, Clock.systemUTC());
        CountDownLatch down = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            supervisor.stop();
            down.countDown();
        }, "supervisor-shutdown"));
        supervisor.start();
        try {
            down.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            supervisor.stop();
        }
        return 0;
    }

    private static int registerManifest(Map<String, String> opts, Map<String, String> env, PrintStream out)
            throws IOException {
        Path file = Path.of(required(opts, "file"));
        byte[] body;
        try {
            body = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException("cannot read manifest " + file + ": " + e.getMessage(), e);
        }
        Inbound checked = new MessageValidator("-").control(body, file.toString());
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException("manifest " + file + " is refused: " + r.rejection().reason() + ": "
                    + r.rejection().detail());
        }
        if (!(checked instanceof Inbound.Manifest m)) {
            throw new IllegalArgumentException("manifest " + file + " is not a manifest (its type must be \"manifest\")");
        }
        send(opts, env, body);
        out.println("manifest of dataset " + m.manifest().dataset() + " (" + m.manifest().files().size()
                + " files) sent to " + opts.getOrDefault("queue", SupervisorConfig.defaultOf(SupervisorConfig.QUEUE_CONTROL)));
        return 0;
    }

    private static int resignal(Map<String, String> opts, Map<String, String> env, PrintStream out) throws IOException {
        String dataset = required(opts, "dataset");
        byte[] body = Json.write(ResignalCommand.of(dataset));
        Inbound checked = new MessageValidator("-").control(body, "command line");
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException(r.rejection().detail());
        }
        send(opts, env, body);
        out.println("resignal of dataset " + dataset + " sent; the supervisor log and /datasets/" + dataset
                + " show the outcome");
        return 0;
    }

    private static int invalidate(Map<String, String> opts, Map<String, String> env, PrintStream out)
            throws IOException {
        String dataset = required(opts, "dataset");
        String url = required(opts, "url");
        byte[] body = Json.write(InvalidateCommand.of(dataset, url, required(opts, "reason"), "operator"));
        Inbound checked = new MessageValidator("-").control(body, "command line");
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException(r.rejection().detail());
        }
        send(opts, env, body);
        out.println("invalidation of object " + url + " of dataset " + dataset + " sent; /datasets/" + dataset
                + " shows the new selection");
        return 0;
    }

    private static void send(Map<String, String> opts, Map<String, String> env, byte[] body) throws IOException {
        List<StompEndpoint> brokers = StompEndpoint.parseList(required(opts, "brokers"));
        String user = opts.get("user");
        String password = env.get(SupervisorConfig.ENV_STOMP_PASSWORD);
        if (opts.containsKey("password-file")) {
            password = SecretFile.read(Path.of(opts.get("password-file")), "--password-file");
        }
        String queue = opts.getOrDefault("queue", SupervisorConfig.defaultOf(SupervisorConfig.QUEUE_CONTROL));
        try (StompSender sender = new StompSender(StompSettings.of(brokers, user, password))) {
            sender.send(queue, body, Map.of("content-type", "application/json"));
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || a.length() == 2) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("option --" + name + " needs a value");
            }
            if (opts.put(name, value) != null) {
                throw new IllegalArgumentException("option --" + name + " given twice");
            }
        }
        return opts;
    }

    private static String required(Map<String, String> opts, String name) throws UsageException {
        String v = opts.get(name);
        if (v == null || v.isBlank()) {
            throw new UsageException("option --" + name + " is required");
        }
        return v;
    }

    private static final class UsageException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
