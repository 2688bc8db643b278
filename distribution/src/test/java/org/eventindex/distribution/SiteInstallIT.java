package org.eventindex.distribution;

import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.deploy.chaos.SiteServicesMain;
import org.eventindex.config.SecretFile;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.KuduBinaries;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A site of several hosts (network namespaces, {@link HostNetwork}) installed from the tarball alone, as
 * docs/install.md has an operator do it: two brokers under one alias, and HDFS, Kudu and S3 each on its own host
 * ({@link SiteServicesMain}, started on a control host); the tarball unpacked into an empty folder; the site's
 * configuration made from its {@code conf/} with the hosts' addresses; the tables made by its {@code kudu-loader
 * create-tables} and the HDFS root by {@code hdfs dfs -mkdir}; then its {@code eventindex check} of the supervisor's
 * file on the supervisor host and of the consumer's on the consumer host: green. Then each dependency broken in turn
 * (a wrong broker password, a missing bucket, the HDFS root owned by someone else, a missing Kudu table, the consumer's
 * host cut from the HDFS, Kudu and S3 hosts), and each run must exit 1 with the failing lines naming it; after the last, the
 * site is green again. An expired keytab is {@code KerberizedPreflightIT}'s (preflight): a KDC per host is not cheap.
 * With CI set, a machine without root, {@code ip} or {@code nft} fails the test.
 */
final class SiteInstallIT {
    private static final Logger LOG = LoggerFactory.getLogger(SiteInstallIT.class);
    private static final String ROOT = "/eventindex/datasets";
    private static final String OTHER_OWNER = "alice:physics";
    private static final Duration START = Duration.ofMinutes(3);
    /** What {@code check} gives each dependency; a cut one must fail within it. */
    private static final String TIMEOUT_SECONDS = "5";

    @TempDir
    Path temp;

    private InstalledTree tree;
    private Map<String, String> env;
    private Path hadoopConf;
    private int runs;

    @Test
    void aSiteInstalledFromTheTarballIsGreenThenEachBrokenDependencyIsNamed() throws Exception {
        HostNetwork.requireSupported();
        Path install = Files.createDirectories(temp.resolve("opt"));
        try (Stream<Path> before = Files.list(install)) {
            assertEquals(0, before.count(), "the install folder is not empty");
        }
        tree = InstalledTree.unpack(install);
        List<String> hosts = new ArrayList<>(SiteServicesMain.HOSTS);
        hosts.addAll(List.of("supervisor", "consumer"));
        try (HostNetwork net = HostNetwork.create(hosts)) {
            Path endpoints = temp.resolve("services/endpoints.properties");
            Path servicesLog = temp.resolve("services.log");
            Process services = ChildJvm.main(SiteServicesMain.class).heap("384m").quickStart()
                    .options("-D" + KuduBinaries.PROPERTY + "=" + KuduBinaries.binDir())
                    .args("--network", net.describe(), "--work", temp.resolve("services").toString(),
                            "--endpoints", endpoints.toString())
                    .on(net.host("control")).start(servicesLog);
            try {
                Await.until("the site's services up (log " + servicesLog + ")", START, () -> {
                    assertTrue(services.isAlive(), "the services exited; log " + servicesLog + ":\n"
                            + read(servicesLog));
                    return Files.exists(endpoints);
                });
                installAndCheck(net, SiteConfiguration.properties(endpoints));
            } finally {
                services.destroy(); // SIGTERM: its shutdown hook stops every service
                if (!services.waitFor(1, TimeUnit.MINUTES)) {
                    services.destroyForcibly().waitFor();
                }
            }
        }
    }

    private void installAndCheck(HostNetwork net, Properties e) throws Exception {
        Host hdfsHost = net.host("hdfs");
        Host kuduHost = net.host("kudu");
        Host s3Host = net.host("s3");
        List<Host> services = List.of(hdfsHost, kuduHost, s3Host);
        Host supervisorHost = net.host("supervisor");
        Host consumerHost = net.host("consumer");
        URI nameNode = URI.create(e.getProperty(SiteServicesMain.HDFS_URI));
        String masters = e.getProperty(SiteServicesMain.KUDU_MASTERS);
        Path secrets = Path.of(e.getProperty(SiteServicesMain.SECRETS_DIR));
        assertTrue(e.getProperty(SiteServicesMain.BROKERS).startsWith(net.host("broker1").address() + ":"),
                "the brokers are on their hosts: " + e);

        // docs/install.md, steps 2, 3, 7 to 9: the HDFS root, the tables, the configuration folder
        hadoopConf = SiteConfiguration.hadoopConfiguration(temp.resolve("etc/hadoop/conf"), nameNode);
        hdfs(hdfsHost, "-mkdir", "-p", ROOT);
        Path site = temp.resolve("etc/eventindex");
        SiteConfiguration.write(tree.home().resolve("conf"), site, new SiteConfiguration.Services(
                e.getProperty(SiteServicesMain.BROKERS), secrets, e.getProperty(SiteServicesMain.S3_ENDPOINT),
                e.getProperty(SiteServicesMain.S3_BUCKET), e.getProperty(SiteServicesMain.S3_ACCESS_KEY),
                Path.of(e.getProperty(SiteServicesMain.S3_SECRET_KEY_FILE)), nameNode, ROOT, masters),
                hadoopConf, temp.resolve("var/lib/eventindex"), "0.0.0.0");
        env = Map.of("EVENTINDEX_CONF_DIR", site.toString(), "JAVA_HOME", System.getProperty("java.home"));
        createTables(supervisorHost, masters);

        // step 12: the check of each host's file, on its host
        Path supervisorFile = site.resolve("supervisor.properties");
        Path consumerFile = site.resolve("consumer.properties");
        green(check(supervisorHost, "supervisor", supervisorFile), "broker", "s3.delete", "kudu.masters",
                "kudu.tables", "kudu.read");
        green(check(consumerHost, "consumer", consumerFile), "broker", "s3.read", "hdfs.nameservice", "hdfs.root",
                "kudu.masters", "kudu.tables", "kudu.read", "kudu.write");

        // A wrong broker password: each broker of the alias refuses the login
        Path wrong = SecretFile.write(Files.createDirectories(temp.resolve("wrong-secrets"))
                .resolve("consumer.password"), "not-the-password");
        InstalledTree.Run badLogin = check(consumerHost, "consumer", variant(consumerFile,
                ConsumerConfig.STOMP_PASSWORD_FILE, wrong.toString()));
        List<String> brokerLines = failed(badLogin, "broker");
        assertEquals(2, brokerLines.size(), badLogin.output());
        for (String b : List.of("broker1", "broker2")) {
            assertTrue(brokerLines.stream().anyMatch(l -> l.contains(net.host(b).address() + ":")
                    && l.contains(" as " + BrokerLogins.CONSUMER + " ")), b + " in " + brokerLines);
        }

        // The bucket missing: the supervisor's cleanup and the consumer's reads name it
        String bucket = "no-such-bucket";
        for (String daemon : List.of("supervisor", "consumer")) {
            Host host = net.host(daemon);
            Path file = site.resolve(daemon + ".properties");
            String check = daemon.equals("supervisor") ? "s3.delete" : "s3.read";
            InstalledTree.Run noBucket = check(host, daemon, variant(file, daemon + ".s3.bucket", bucket));
            String line = line(failed(noBucket, check), check);
            assertTrue(line.contains("S3 bucket " + bucket + " at " + e.getProperty(SiteServicesMain.S3_ENDPOINT))
                    && line.contains("NoSuchBucket"), line);
        }

        // The HDFS root owned by someone else, then given back
        hdfs(hdfsHost, "-chown", OTHER_OWNER, ROOT);
        InstalledTree.Run othersRoot = check(consumerHost, "consumer", consumerFile);
        String rootLine = line(failed(othersRoot, "hdfs.root"), "hdfs.root");
        assertTrue(rootLine.contains("HDFS folder " + ROOT + " is owned by " + OTHER_OWNER)
                && rootLine.contains("hdfs dfs -chown"), rootLine);
        hdfs(hdfsHost, "-chown", System.getProperty("user.name"), ROOT);

        // A Kudu table missing, then made again by the loader (it creates what is missing)
        String table = new KuduTablesConfig("", 2, 1).triggerCountTable();
        Path dropLog = temp.resolve("kudu-table-delete.log");
        Process drop = new ProcessBuilder(kuduHost.command(List.of(KuduBinaries.kudu().toString(), "table", "delete",
                masters, table))).redirectErrorStream(true).redirectOutput(dropLog.toFile()).start();
        assertTrue(drop.waitFor(2, TimeUnit.MINUTES) && drop.exitValue() == 0, "kudu table delete: " + read(dropLog));
        InstalledTree.Run noTable = check(consumerHost, "consumer", consumerFile);
        String tableLine = line(failed(noTable, "kudu.tables"), "kudu.tables");
        assertTrue(tableLine.contains("table(s) " + table + " do not exist")
                && tableLine.contains("kudu-loader create-tables"), tableLine);
        createTables(supervisorHost, masters);

        // The consumer's host cut from the services' hosts: HDFS, Kudu and S3 fail within the timeout, the brokers not
        services.forEach(h -> net.cut(consumerHost, h));
        long t0 = System.nanoTime();
        InstalledTree.Run cut = check(consumerHost, "consumer", consumerFile);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        services.forEach(h -> net.heal(consumerHost, h));
        // the Kudu checks after the masters' are not tried; the brokers' hosts are still reached
        List<String> cutLines = failed(cut, "s3.read", "hdfs.nameservice", "hdfs.root", "kudu.masters",
                "kudu.tables", "kudu.read", "kudu.write");
        String silence = "no answer within " + TIMEOUT_SECONDS + " s";
        String s3Line = line(cutLines, "s3.read");
        assertTrue(s3Line.contains(" at http://" + s3Host.address() + ":") && s3Line.contains(silence), s3Line);
        assertTrue(line(cutLines, "hdfs.root").contains(silence), cut.output());
        String kuduLine = line(cutLines, "kudu.masters");
        // the Kudu client's own error (at 3/4 of the timeout) or, on a loaded machine, the check's timeout: both name
        // the masters
        assertTrue(kuduLine.contains("Kudu masters " + masters)
                && (kuduLine.contains(" unreachable") || kuduLine.contains(silence)), kuduLine);
        assertTrue(seconds < 60, "the cut run took " + seconds + " s");

        // everything given back: green again
        green(check(consumerHost, "consumer", consumerFile), "broker", "s3.read", "hdfs.root", "kudu.tables");
    }

    /** {@code eventindex check DAEMON --config FILE} of the unpacked tree, on {@code host}. */
    private InstalledTree.Run check(Host host, String daemon, Path config) throws IOException, InterruptedException {
        InstalledTree.Run run = tree.run(host, env, temp.resolve("check-" + (++runs) + "-" + daemon + ".out"), 3,
                "check", daemon, "--config", config.toString(), "--timeout", TIMEOUT_SECONDS);
        LOG.info("check {} --config {} on {}: exit {}\n{}", daemon, config.getFileName(), host.name(), run.exit(),
                run.output());
        return run;
    }

    private static void green(InstalledTree.Run run, String... checks) {
        assertEquals(0, run.exit(), run.output());
        for (String c : checks) {
            assertTrue(run.output().lines().anyMatch(l -> l.startsWith("OK   " + c + " ")), c + " in\n"
                    + run.output());
        }
        assertTrue(run.output().contains("checks passed"), run.output());
    }

    /**
     * The run failed (exit 1) with a FAIL line of {@code checks} and no other: those lines, in order.
     */
    private static List<String> failed(InstalledTree.Run run, String... checks) {
        assertEquals(1, run.exit(), run.output());
        List<String> names = List.of(checks);
        List<String> lines = run.output().lines().filter(l -> l.startsWith("FAIL ")).toList();
        assertFalse(lines.isEmpty(), "no FAIL line in\n" + run.output());
        for (String l : lines) {
            assertTrue(names.contains(name(l)), "a FAIL line of another check than " + names + ": " + l);
        }
        return lines;
    }

    /** The FAIL line of {@code check} among {@code lines}. */
    private static String line(List<String> lines, String check) {
        return lines.stream().filter(l -> name(l).equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no FAIL line of " + check + " in " + lines));
    }

    private static String name(String line) {
        return line.substring("FAIL ".length()).split(" ")[0];
    }

    /** A copy of the site's {@code file} with {@code key} set to {@code value}, as an operator's mistake. */
    private Path variant(Path file, String key, String value) throws IOException {
        Properties p = SiteConfiguration.properties(file);
        Map<String, String> m = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
        m.put(key, value);
        Path dir = Files.createDirectories(temp.resolve("variants"));
        return DaemonProcesses.writeConfig(dir.resolve((++runs) + "-" + file.getFileName()), m);
    }

    /** {@code kudu-loader create-tables} of the unpacked tree on {@code host} (docs/install.md, step 3). */
    private void createTables(Host host, String masters) throws IOException, InterruptedException {
        InstalledTree.Run created = tree.run(host, env, temp.resolve("create-tables-" + (++runs) + ".out"), 3,
                "kudu-loader", "create-tables", "--masters", masters, "--prefix=", "--buckets", "2", "--replicas",
                "1", "--epoch", "1");
        assertEquals(0, created.exit(), created.output());
    }

    /** {@code hdfs dfs ARGS} (Hadoop's FsShell) with the site's Hadoop configuration folder, run on {@code host}. */
    private void hdfs(Host host, String... args) throws IOException, InterruptedException {
        Path log = temp.resolve("hdfs-" + (++runs) + ".log");
        Process p = ChildJvm.main("org.apache.hadoop.fs.FsShell", hadoopConf + File.pathSeparator
                + System.getProperty("java.class.path")).heap("256m").quickStart().args(args).on(host).start(log);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "hdfs dfs " + List.of(args) + " did not finish: " + read(log));
        assertEquals(0, p.exitValue(), "hdfs dfs " + List.of(args) + ": " + read(log));
    }

    private static String read(Path file) {
        try {
            return InstalledTree.read(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
