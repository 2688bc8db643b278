package org.eventindex.deploy.chaos;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.testing.hosts.HostNetwork;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A site's services on the hosts of a {@link HostNetwork} that another process made, for a test that installs
 * EventIndex on the other hosts from the distribution: run on the {@code control} host (only a process inside the
 * network reaches the hosts' addresses to see the services up), it starts {@link HostsCluster#startServices} (the
 * brokers, the S3 server and its bucket, HDFS and Kudu, no table and no daemon), then writes what a site's
 * operator is told about them to {@code --endpoints} (a properties file, written whole once everything answers) and
 * serves until SIGTERM, which stops every service.
 */
@Command(name = "site-services", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Starts a site's services (brokers, S3, HDFS, Kudu) on the hosts of a host network and writes"
                + " their endpoints; until SIGTERM. Started on the control host by SiteInstallIT.")
public final class SiteServicesMain implements java.util.concurrent.Callable<Integer> {
    /** The hosts the services need, with {@code control} (where this process runs) first. */
    public static final java.util.List<String> HOSTS = java.util.stream.Stream.concat(
            java.util.stream.Stream.of("control"), java.util.stream.Stream.concat(
                    HostsCluster.BROKER_HOSTS.stream(), java.util.stream.Stream.of("hdfs", "kudu", "s3"))).toList();
    /** Keys of the endpoints file. */
    public static final String BROKERS = "brokers";
    public static final String SECRETS_DIR = "secrets.dir";
    public static final String S3_ENDPOINT = "s3.endpoint";
    public static final String S3_BUCKET = "s3.bucket";
    public static final String S3_ACCESS_KEY = "s3.access.key";
    public static final String S3_SECRET_KEY_FILE = "s3.secret.key.file";
    public static final String HDFS_URI = "hdfs.uri";
    public static final String KUDU_MASTERS = "kudu.masters";

    @Option(names = "--network", required = true, description = "the host network, as HostNetwork.describe() gives it")
    private String network;
    @Option(names = "--work", required = true, description = "the work folder (logs, data, secrets)")
    private Path work;
    @Option(names = "--endpoints", required = true, description = "where the endpoints are written")
    private Path endpoints;

    private SiteServicesMain() {
    }

    public static void main(String[] args) {
        int status = execute(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new SiteServicesMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        HostsCluster site = HostsCluster.startServices(work, HostNetwork.attach(network), System.out::println);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            site.close();
            stopped.countDown();
        }, "site-services-stop"));
        Map<String, String> e = new LinkedHashMap<>();
        e.put(BROKERS, site.brokerEndpoint());
        e.put(SECRETS_DIR, site.secrets().toString());
        e.put(S3_ENDPOINT, site.s3Endpoint());
        e.put(S3_BUCKET, HostsCluster.BUCKET);
        e.put(S3_ACCESS_KEY, HostsCluster.S3_ACCESS_KEY);
        e.put(S3_SECRET_KEY_FILE, site.s3SecretKeyFile().toString());
        e.put(HDFS_URI, site.hdfsUri().toString());
        e.put(KUDU_MASTERS, site.kuduMasters());
        // written beside and moved: a reader never sees half a file
        Path partial = DaemonProcesses.writeConfig(endpoints.resolveSibling(endpoints.getFileName() + ".partial"), e);
        Files.move(partial, endpoints, StandardCopyOption.ATOMIC_MOVE);
        System.out.println("site services ready: " + e);
        stopped.await();
        return 0;
    }
}
