package org.eventindex.cluster.testing;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.testing.Await;
import org.eventindex.testing.Ports;
import org.eventindex.testing.Prerequisites;

import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Kudu master and tablet server as processes of the real {@code kudu} binary ({@code .kudu-binary}), with
 * {@code --rpc_authentication=required}: clients must come with Kerberos (or an authentication token the master gave
 * them after a Kerberos login, valid {@code tokenValiditySeconds}). Both servers log in as {@code kudu/<host>} (their
 * {@code _HOST}, this machine's name) from one keytab made in the {@link MitKdc}, which also holds
 * {@code kudu/localhost}: the Java client asks for a ticket to {@code kudu/<the masters' IP's name>}, here
 * {@code localhost}, and the KDC's krb5.conf lets the servers accept it ({@code ignore_acceptor_hostname}). Idle
 * connections are closed after 3 s (or the time given), so that a client negotiates (and authenticates) again often.
 */
public final class KerberizedKudu implements AutoCloseable {
    private final String host;
    private final int masterPort;
    private final List<Process> processes;
    private final Path dir;

    private KerberizedKudu(String host, int masterPort, List<Process> processes, Path dir) {
        this.host = host;
        this.masterPort = masterPort;
        this.processes = processes;
        this.dir = dir;
    }

    /** The host name the Kudu servers put in their principal {@code kudu/<host>} (their _HOST). */
    public static String host() throws IOException {
        return InetAddress.getLocalHost().getHostName();
    }

    /** {@link #start(MitKdc, Path, int, Duration)} with idle connections closed after 3 s. */
    public static KerberizedKudu start(MitKdc kdc, Path dir, int tokenValiditySeconds)
            throws IOException, InterruptedException {
        return start(kdc, dir, tokenValiditySeconds, Duration.ofSeconds(3));
    }

    /**
     * Starts the master and the tablet server.
     *
     * @param tokenValiditySeconds how long the master's authentication tokens last; a client authenticates with
     *                             Kerberos again for a new one
     * @param idle                 after how long without a call the servers close a connection
     *                             ({@code --rpc_default_keepalive_time_ms}); the next call negotiates again
     */
    public static KerberizedKudu start(MitKdc kdc, Path dir, int tokenValiditySeconds, Duration idle)
            throws IOException, InterruptedException {
        Path kudu = binary();
        String host = host();
        Path keytab = kdc.keytab(dir.resolve("kudu.keytab"), host.equals("localhost") ? List.of("kudu/localhost")
                : List.of("kudu/" + host, "kudu/localhost"));
        int masterPort = Ports.free();
        List<Process> started = new ArrayList<>();
        KerberizedKudu k = new KerberizedKudu(host, masterPort, started, dir);
        try {
            started.add(daemon(kdc, kudu, dir, "master", keytab, idle, List.of(
                    "--rpc_bind_addresses=127.0.0.1:" + masterPort,
                    "--authn_token_validity_seconds=" + tokenValiditySeconds)));
            started.add(daemon(kdc, kudu, dir, "tserver", keytab, idle, List.of(
                    "--rpc_bind_addresses=127.0.0.1:" + Ports.free(),
                    "--tserver_master_addrs=localhost:" + masterPort)));
            return k;
        } catch (IOException | RuntimeException e) {
            k.close();
            throw e;
        }
    }

    private static Process daemon(MitKdc kdc, Path kudu, Path dir, String role, Path keytab, Duration idle,
                                  List<String> extra) throws IOException {
        Path home = dir.resolve(role);
        Files.createDirectories(home.resolve("wal"));
        Files.createDirectories(home.resolve("data"));
        Files.createDirectories(home.resolve("log"));
        List<String> cmd = new ArrayList<>(List.of(kudu.toString(), role, "run",
                "--fs_wal_dir=" + home.resolve("wal"), "--fs_data_dirs=" + home.resolve("data"),
                "--log_dir=" + home.resolve("log"), "--logtostderr", "--time_source=system_unsync",
                "--unlock_unsafe_flags", "--unlock_experimental_flags", "--never_fsync",
                "--webserver_enabled=false", "--rpc_authentication=required", "--keytab_file=" + keytab,
                "--rpc_default_keepalive_time_ms=" + idle.toMillis()));
        cmd.addAll(extra);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve(role + ".out").toFile());
        pb.environment().putAll(kdc.environment());
        pb.environment().put("KRB5_KTNAME", keytab.toString());
        pb.environment().put("KRB5CCNAME", "FILE:" + home.resolve("krb5cc"));
        return pb.start();
    }

    /** {@code localhost:<port>} of the master. */
    public String masterAddresses() {
        return "localhost:" + masterPort;
    }

    /** The daemons' output, for failure messages. */
    public Path dir() {
        return dir;
    }

    /**
     * A Kudu client logged in as {@code principal} from {@code keytab} with a JAAS login of its own (not Hadoop's: a
     * test JVM's Hadoop login user may be a NameNode's). Its tickets are not renewed: for short checks.
     */
    public KuduClient clientAs(String principal, Path keytab) throws LoginException {
        Map<String, String> options = Map.of("useKeyTab", "true", "keyTab", keytab.toString(),
                "principal", principal, "storeKey", "true", "doNotPrompt", "true", "refreshKrb5Config", "true");
        Configuration jaas = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[]{new AppConfigurationEntry(
                        "com.sun.security.auth.module.Krb5LoginModule",
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
            }
        };
        LoginContext login = new LoginContext("kudu-test-client", new Subject(), null, jaas);
        login.login();
        return Subject.doAs(login.getSubject(), (PrivilegedAction<KuduClient>)
                () -> new KuduClient.KuduClientBuilder(masterAddresses()).build());
    }

    /**
     * Waits until the master knows the tablet server, asking as {@code principal} (the servers need a Kerberized
     * client to answer at all).
     */
    public void awaitTabletServer(String principal, Path keytab, Duration timeout) throws LoginException {
        AtomicReference<Exception> last = new AtomicReference<>();
        try (KuduClient client = clientAs(principal, keytab)) {
            Await.until("a Kerberized Kudu tablet server registered", timeout, () -> {
                if (!alive()) {
                    throw new IllegalStateException("a Kudu daemon exited:\n" + lastOutput());
                }
                try {
                    return client.listTabletServers().getTabletServersCount() == 1;
                } catch (Exception e) {
                    last.set(e);
                    return false;
                }
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last error: " + last.get() + "\n" + lastOutput(), e);
        } catch (KuduException e) {
            throw new IllegalStateException("closing the Kudu client failed: " + e.getMessage(), e);
        }
    }

    /** The last lines of the daemons' output, for failure messages. */
    public String lastOutput() {
        StringBuilder b = new StringBuilder();
        for (String role : List.of("master", "tserver")) {
            try {
                List<String> lines = Files.readAllLines(dir.resolve(role + ".out"));
                b.append("--- ").append(role).append(":\n");
                lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> b.append(l).append('\n'));
            } catch (IOException e) {
                b.append("--- ").append(role).append(": ").append(e).append('\n');
            }
        }
        return b.toString();
    }

    /** Whether both daemons still run. */
    public boolean alive() {
        return processes.stream().allMatch(Process::isAlive);
    }

    static Path binary() {
        String configured = System.getProperty("kuduBinDir");
        if (configured == null || configured.isBlank()) {
            configured = System.getenv("EI_KUDU_BIN_DIR");
        }
        Path k = configured == null || configured.isBlank() ? null : Path.of(configured).resolve("kudu");
        Prerequisites.require(k != null && Files.isExecutable(k), "the kudu binary: set"
                + " -DkuduBinDir=<repo>/.kudu-binary/bin (written by the kudu-tables build)");
        return k;
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
