package org.eventindex.consumer;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.StopSignals;
import org.eventindex.ProjectVersion;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterErrors;
import org.eventindex.cli.VersionProvider;
import org.eventindex.config.ConfigKeysFile;
import org.eventindex.io.FileReason;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyWait;
import org.eventindex.ops.OpsHttpServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ConsumerMain run --config consumer.properties}: runs the consumer daemon until SIGTERM/SIGINT.
 * Exit codes: 0 after a clean stop, 2 for bad usage or configuration, 1 when it cannot start, 3
 * ({@link Consumer#EXIT_WORKER_DIED}) when its signal worker died (e.g. of an {@link OutOfMemoryError}), so that
 * its process supervisor (systemd) restarts it.
 */
@Command(name = "eventindex consumer", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class, subcommands = {ConsumerMain.Run.class, ConsumerMain.ConfigKeys.class},
        description = "The consumer daemon.",
        footer = {"", "Keys and defaults: config-keys, docs/consumer.md; secrets via *.file keys or EI_STOMP_PASSWORD,"
                + " EI_S3_ACCESS_KEY, EI_S3_SECRET_KEY."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:clean stop (SIGTERM/SIGINT)", "1:cannot start", "2:bad usage or configuration",
            "3:the signal worker died (e.g. OutOfMemoryError): restart it"})
public final class ConsumerMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerMain.class);

    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;

    private ConsumerMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new ConsumerMain(out, err), args, out, err);
    }

    /** No command given. */
    @Override
    public Integer call() {
        err.println("consumer: a command is required");
        spec.commandLine().usage(err);
        return CommandLines.USAGE_ERROR;
    }

    @Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Runs the consumer daemon until SIGTERM/SIGINT.")
    static final class Run implements Callable<Integer> {
        @ParentCommand
        private ConsumerMain main;
        @Option(names = "--config", paramLabel = "FILE", required = true,
                description = "the consumer's properties file (docs/consumer.md)")
        private Path config;

        @Override
        public Integer call() {
            return daemon(config, main.err);
        }
    }

    @Command(name = "config-keys", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Prints every configuration key with its default and meaning, as a commented properties"
            + " file (a starting consumer.properties).")
    static final class ConfigKeys implements Callable<Integer> {
        @ParentCommand
        private ConsumerMain main;

        @Override
        public Integer call() {
            ConfigKeysFile.print("The consumer's configuration (eventindex consumer run --config FILE): every key with"
                    + " its default; docs/consumer.md.", ConsumerConfig.KEYS, main.out);
            return 0;
        }
    }

    /**
     * The ops server while the consumer waits for what it cannot be built without (the KDC of its login):
     * {@code /health} 200, {@code /ready} 503 naming it, {@code /metrics} with the wait's count. The consumer's own
     * server takes the port once it is built.
     */
    private static OpsHttpServer startingServer(ConsumerConfig config, DependencyWait wait) throws IOException {
        PrometheusRegistry registry = DaemonMetrics.registry("consumer");
        wait.register(registry);
        OpsHttpServer server = new OpsHttpServer(new InetSocketAddress(config.httpHost(), config.httpPort()),
                OpsHttpServer.DEFAULT_THREADS, registry, OpsHttpServer.Readiness::ok,
                () -> OpsHttpServer.Readiness.notReady(wait.waitingFor().map(w -> "waiting for " + w)
                        .orElse("starting")), config.httpAccess());
        server.start();
        return server;
    }

    private static int daemon(Path file, PrintStream err) {
        LOG.info(ProjectVersion.startLine("consumer"));
        ConsumerConfig config;
        try {
            config = ConsumerConfig.load(file, System.getenv());
        } catch (Exception e) {
            err.println("consumer: bad configuration: " + e.getMessage());
            return 2;
        }
        LOG.info("starting with {}", config);
        Consumer consumer;
        // the worker's death is decided here and acted on by this thread, never on the dying worker's
        AtomicInteger exitStatus = new AtomicInteger();
        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM/SIGINT stop it here and exit 0 (the JVM's own handling would exit 143/130); installed before the
        // start, so that a stop during the start waits for it. The hook still stops it on any other exit of the JVM.
        DependencyWait wait = new DependencyWait();
        StopSignals signals = StopSignals.daemon("consumer", () -> {
            wait.close();
            stopped.countDown();
        });
        try {
            try (OpsHttpServer starting = startingServer(config, wait)) {
                consumer = Consumer.create(config, Clock.systemUTC(), wait);
            } catch (InterruptedException e) {
                err.println("consumer: " + signals.received() + " received while waiting for the KDC, stopping");
                return 0;
            }
            consumer.start((status, reason) -> {
                exitStatus.compareAndSet(0, status);
                err.println("consumer: exiting with status " + status + ": " + reason);
                stopped.countDown();
            });
        } catch (ClusterConfigException e) {
            err.println("consumer: bad configuration: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            String reason = e instanceof java.io.IOException io ? FileReason.describe(io) : e.getMessage();
            if (ClusterErrors.known(e)) {
                // an unknown nameservice, an unreachable NameNode or Kudu, a refused login: the line says it all
                LOG.error("consumer {} could not start: {}", config.consumerId(), reason);
            } else {
                LOG.error("consumer {} could not start", config.consumerId(), e);
            }
            err.println("consumer: cannot start: " + reason);
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(consumer::stop, "consumer-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (signals.received() != null && exitStatus.get() == 0) {
            err.println("consumer: " + signals.received() + " received, stopping");
        }
        consumer.stop();
        return exitStatus.get();
    }
}
