package org.eventindex.brokerwatch;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.StopSignals;
import org.eventindex.cli.VersionProvider;
import org.eventindex.config.ConfigReader;
import org.eventindex.config.SecretFile;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.HttpAccess;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.stomp.StompEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code eventindex broker-watchdog}: runs beside each broker (same node, same user) and kills it with SIGKILL when it
 * listens but stops answering ({@link BrokerWatchdog}), so that its service manager restarts it.
 * Until SIGTERM or Ctrl-C.
 */
@Command(name = "eventindex broker-watchdog", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = {"Kills the local ActiveMQ broker when it listens but stops answering"
            + " (stopped or hung), so that clients move to the other brokers of the alias and its service manager"
            + " restarts it on its own store; leaves a broker that does not listen (down or starting) alone."
            + " Runs until SIGTERM.",
            "Probe: a STOMP CONNECT (as --user); any answer (CONNECTED or ERROR) is a sign of life. A broker"
            + " silent for --timeout on --silent-probes probes in a row is killed (worst case about"
            + " silent-probes x (interval + timeout)).",
            "/health, /ready (503 while the broker listens but does not answer) and /metrics"
            + " (eventindex_brokerwatch_*) on --http-host:--http-port."})
public final class BrokerWatchdogMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerWatchdogMain.class);
    /** The watchdog's HTTP port when {@code --http-port} is not given. */
    static final int DEFAULT_HTTP_PORT = 8086;

    @Spec
    private CommandSpec spec;
    @Option(names = "--broker", required = true, paramLabel = "HOST:PORT",
            description = "the local broker's STOMP connector on a loopback address, e.g. 127.0.0.1:61614")
    private String broker;
    @Option(names = "--tls", description = "the connector is STOMP over TLS (stomp+ssl); the certificate is not"
            + " checked (loopback only)")
    private boolean tls;
    @Option(names = "--user", paramLabel = "LOGIN", description = "the probe's STOMP login (any login of the broker;"
            + " without one the probe is anonymous and the broker logs a refused login per probe)")
    private String user;
    @Option(names = "--password-file", paramLabel = "FILE", description = "file (mode 0600) holding --user's"
            + " password")
    private Path passwordFile;
    @Option(names = "--pid-file", required = true, paramLabel = "FILE",
            description = "the broker's pid file (ActiveMQ's bin/activemq writes data/activemq.pid)")
    private Path pidFile;
    @Option(names = "--interval", paramLabel = "DURATION", description = "time between probes (default"
            + " ${DEFAULT-VALUE})")
    private String interval = "2s";
    @Option(names = "--timeout", paramLabel = "DURATION", description = "how long a probe waits for the broker's"
            + " answer (default ${DEFAULT-VALUE})")
    private String timeout = "5s";
    @Option(names = "--silent-probes", paramLabel = "N", description = "silent probes in a row before the kill"
            + " (default ${DEFAULT-VALUE})")
    private int silentProbes = 3;
    @Option(names = "--http-host", paramLabel = "ADDRESS", description = "address of /health, /ready and /metrics"
            + " (default ${DEFAULT-VALUE})")
    private String httpHost = "127.0.0.1";
    @Option(names = "--http-port", paramLabel = "N", description = "port of /health, /ready and /metrics, 0 for a"
            + " free one (default ${DEFAULT-VALUE})")
    private int httpPort = DEFAULT_HTTP_PORT;
    @Option(names = "--http-config", paramLabel = "FILE", description = "properties file of the brokerwatch.http.*"
            + " keys: TLS, authentication and a separate /metrics bind (docs/security.md); without it plain HTTP"
            + " with no authentication")
    private Path httpConfig;

    private BrokerWatchdogMain() {
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new BrokerWatchdogMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        StompEndpoint endpoint;
        Duration every;
        Duration wait;
        try {
            endpoint = StompEndpoint.parseList(broker).get(0);
            if (broker.contains(",")) {
                throw new IllegalArgumentException("--broker names one broker, the local one: " + broker);
            }
            if (!isLoopback(endpoint.host())) {
                throw new IllegalArgumentException("--broker " + broker + " is not a loopback address: the watchdog"
                        + " runs on the broker's node and probes it there (e.g. 127.0.0.1:61614)");
            }
            if ((user == null) != (passwordFile == null)) {
                throw new IllegalArgumentException("--user and --password-file go together");
            }
            every = ConfigReader.parseDuration("--interval", interval);
            wait = ConfigReader.parseDuration("--timeout", timeout);
            if (every.isNegative() || every.isZero() || wait.isNegative() || wait.isZero()) {
                throw new IllegalArgumentException("--interval and --timeout must be positive");
            }
            if (httpPort < 0 || httpPort > 65535) {
                throw new IllegalArgumentException("--http-port must be within 0..65535: " + httpPort);
            }
            if (silentProbes < 1) {
                throw new IllegalArgumentException("--silent-probes must be at least 1: " + silentProbes);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        HttpAccess access;
        try {
            access = httpConfig == null ? HttpAccess.open() : HttpAccess.load(httpConfig, "brokerwatch.");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--http-config: " + e.getMessage());
        }
        String password = passwordFile == null ? null : SecretFile.read(passwordFile, "--password-file");
        BrokerProbe probe = new BrokerProbe(endpoint, tls, user, password, wait);
        BrokerWatchMetrics metrics = new BrokerWatchMetrics(DaemonMetrics.registry("brokerwatch"));
        BrokerWatchdog watchdog = new BrokerWatchdog(() -> {
            BrokerProbe.Outcome o = probe.probe();
            metrics.probed(o);
            return o;
        }, pidFile, silentProbes, pid -> {
            boolean killed = BrokerWatchdog.Killer.SIGKILL.kill(pid);
            if (killed) {
                metrics.killed();
            }
            return killed;
        }, LOG::warn);
        CountDownLatch stop = new CountDownLatch(1);
        StopSignals.daemon("broker-watchdog", stop::countDown);
        try (OpsHttpServer http = new OpsHttpServer(new InetSocketAddress(httpHost, httpPort),
                OpsHttpServer.DEFAULT_THREADS, metrics.registry(), OpsHttpServer.Readiness::ok, metrics::readiness,
                access)) {
            http.start();
            LOG.info("watching broker {} ({}, {}), pid file {}: a probe every {} ms, killed after {} silent probes of"
                    + " {} ms; /health, /ready and /metrics on {}://{}:{} ({})", endpoint, tls ? "stomp+ssl" : "stomp",
                    user == null ? "anonymous" : "as " + user, pidFile, every.toMillis(), silentProbes,
                    wait.toMillis(), access.scheme(), httpHost, http.port(), access);
            do {
                watchdog.check();
            } while (!stop.await(every.toMillis(), TimeUnit.MILLISECONDS));
        }
        LOG.info("broker watchdog stopped");
        return 0;
    }

    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
