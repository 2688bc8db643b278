package org.eventindex.cluster.testing;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.KerberosLogin;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalObject;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbWriter;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@code bin/kerberos-soak}: the Kerberos renewal on real ticket lifetimes, which the tests of {@code bin/test} do not
 * wait for (they move the login's clock instead). A real MIT KDC with short tickets, a Kerberized HDFS and Kudu, and two
 * clients as processes of their own, each logged in from a keytab with the system clock: a probe writing an HDFS file
 * and a Kudu row every sixth of a lifetime ({@link ClusterProbeMain}), and the consumer daemon loading a dataset every
 * half lifetime. Both must work across every lifetime and renew their login at least once per lifetime.
 */
@Command(name = "bin/kerberos-soak", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = {"Kerberos renewal on real ticket lifetimes: a real MIT KDC with short"
        + " tickets, Kerberized HDFS and Kudu, a probe process writing to both and the consumer daemon loading"
        + " datasets, across several lifetimes; each client must renew its login once per lifetime and never fail."},
        footer = {"", "bin/kerberos-soak builds first (mvn -DskipTests package; EI_KERBEROS_SOAK_NO_BUILD=1 skips it)."
                + " It needs krb5kdc and kadmin.local (apt-get install krb5-kdc krb5-admin-server krb5-user)."
                + " Logs of every process stay in DIR."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every round and dataset worked and each client renewed at least once per lifetime",
            "1:a round, a dataset or a renewal failed, or the run could not start", "2:bad usage"})
public final class KerberosSoakMain implements Callable<Integer> {
    private static final String PRINCIPAL = MitKdc.inRealm("eventindex/localhost");
    private static final String BUCKET = "eventindex";
    private static final String PREFIX = "soak_";
    private static final String HDFS_ROOT = "/eventindex/datasets";
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_";
    private static final String CONTAINER = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String TASK_ID = "12345678.X";
    private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(120);

    @Spec
    private CommandSpec spec;
    @Option(names = "--lifetimes", paramLabel = "N", description = "ticket lifetimes to run the load across, at"
            + " least 1 (default 3); each client must renew its login at least N times")
    private int lifetimes = 3;
    @Option(names = "--ticket-seconds", paramLabel = "S", description = "the KDC's ticket lifetime in seconds, 10 to"
            + " 600 (default 30)")
    private int ticketSeconds = 30;
    @Option(names = "--work", paramLabel = "DIR", description = "folder for the services' data and every process's"
            + " log (default target/kerberos-soak-<time>); kept after the run")
    private Path work;
    /** The system property with the consumer daemon's class path (bin/kerberos-soak sets it). */
    static final String CONSUMER_CLASSPATH = "ei.consumer.classpath";

    private String consumerClasspath;

    private final PrintStream out;
    private long t0;

    private KerberosSoakMain(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Parses {@code args} and runs; {@code --help}, {@code --version} and bad options return at once. */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new KerberosSoakMain(out), args, out, err);
    }

    private void check() {
        consumerClasspath = System.getProperty(CONSUMER_CLASSPATH, "");
        if (consumerClasspath.isBlank()) {
            throw new ParameterException(spec.commandLine(), "no class path of the consumer daemon (-D"
                    + CONSUMER_CLASSPATH + "): run bin/kerberos-soak, which sets it");
        }
        if (lifetimes < 1) {
            throw new ParameterException(spec.commandLine(), "--lifetimes must be at least 1, was " + lifetimes);
        }
        if (ticketSeconds < 10 || ticketSeconds > 600) {
            throw new ParameterException(spec.commandLine(), "--ticket-seconds must be 10 to 600, was "
                    + ticketSeconds);
        }
    }

    @Override
    public Integer call() throws Exception {
        check();
        Path dir = (work != null ? work : Path.of("target", "kerberos-soak-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")))).toAbsolutePath();
        Files.createDirectories(dir);
        // the services in this JVM (HDFS, broker, S3) log and print to a file, the progress goes to stdout
        PrintStream systemOut = System.out;
        PrintStream systemErr = System.err;
        PrintStream services = new PrintStream(Files.newOutputStream(dir.resolve("soak-jvm.log")), true,
                StandardCharsets.UTF_8);
        System.setOut(services);
        System.setErr(services);
        try {
            return soak(dir);
        } finally {
            System.setOut(systemOut);
            System.setErr(systemErr);
            services.close();
        }
    }

    private int soak(Path dir) throws Exception {
        t0 = System.nanoTime();
        Duration lifetime = Duration.ofSeconds(ticketSeconds);
        Duration load = lifetime.multipliedBy(lifetimes).plus(lifetime.dividedBy(2));
        progress("work folder " + dir + "; tickets of " + ticketSeconds + " s, load for " + load.toSeconds()
                + " s (" + lifetimes + " lifetimes and a half)");
        List<AutoCloseable> started = new ArrayList<>();
        List<Process> processes = new ArrayList<>();
        try {
            return run(dir, lifetime, load, started, processes);
        } catch (Exception | AssertionError e) {
            progress("the run failed: " + e);
            e.printStackTrace(out);
            return 1;
        } finally {
            for (Process p : processes) {
                p.destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).close();
                } catch (Exception e) {
                    progress("stopping " + started.get(i) + " failed: " + e);
                }
            }
            progress("stopped; logs in " + dir);
        }
    }

    private int run(Path dir, Duration lifetime, Duration load, List<AutoCloseable> started, List<Process> processes)
            throws Exception {
        MitKdc kdc = MitKdc.startForThisJvm(dir.resolve("kdc"), lifetime);
        started.add(kdc);
        Path keytab = kdc.keytab("eventindex/localhost", dir.resolve("eventindex.keytab"));
        progress("KDC " + kdc);
        KerberizedHdfs hdfs = KerberizedHdfs.start(kdc, dir.resolve("hdfs"));
        started.add(hdfs);
        hdfs.mkdirFor("/eventindex", "eventindex");
        Path confDir = hdfs.writeClientConf(dir.resolve("hadoop-conf"));
        progress("Kerberized HDFS at " + hdfs.uri());
        int tokenSeconds = Math.max(5, ticketSeconds / 3);
        KerberizedKudu kudu = KerberizedKudu.start(kdc, Files.createDirectories(dir.resolve("kudu")), tokenSeconds);
        started.add(kudu);
        kudu.awaitTabletServer(PRINCIPAL, keytab, Duration.ofSeconds(90));
        progress("Kerberized Kudu at " + kudu.masterAddresses() + " (authentication tokens valid " + tokenSeconds
                + " s)");
        EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
        started.add(broker);
        EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), "soak-access", "soak-secret");
        started.add(s3);
        s3.createBucket(BUCKET);

        int httpPort = freePort();
        Path consumerLog = dir.resolve("consumer.log");
        Process consumer = consumer(kdc, consumerConfig(dir, broker, s3, hdfs, kudu, confDir, keytab, httpPort),
                s3, consumerLog);
        processes.add(consumer);
        HttpClient http = HttpClient.newHttpClient();
        Await.until("the consumer ready on port " + httpPort + " (log " + consumerLog + ")", Duration.ofSeconds(120),
                () -> {
                    if (!consumer.isAlive()) {
                        throw new IllegalStateException("the consumer exited with " + consumer.exitValue()
                                + "; see " + consumerLog);
                    }
                    return status(http, httpPort, "/ready") == 200;
                });
        progress("consumer daemon ready (ops port " + httpPort + ")");

        Duration interval = lifetime.dividedBy(6);
        int rounds = (int) (load.toMillis() / interval.toMillis()) + 1;
        Path probeOut = dir.resolve("probe.out");
        Process probe = new ProcessBuilder(java(), "-Djava.security.krb5.conf=" + kdc.krb5Conf(), "-cp",
                System.getProperty("java.class.path"), ClusterProbeMain.class.getName(), "realtime",
                confDir.toString(), PRINCIPAL, keytab.toString(), hdfs.uri() + "/eventindex/probe",
                kudu.masterAddresses(), String.valueOf(rounds), String.valueOf(interval.toMillis()))
                .redirectErrorStream(true).redirectOutput(probeOut.toFile()).start();
        processes.add(probe);
        progress("probe process started: " + rounds + " rounds, one every " + interval.toMillis() + " ms");

        LogWatch watch = new LogWatch(this::progress);
        watch.follow("probe", probeOut, l -> l.startsWith("round ") || l.contains("renewed from keytab")
                || l.contains("failed") || l.startsWith("probe"));
        watch.follow("consumer", consumerLog, l -> l.contains("renewed from keytab") || l.contains("Kerberos")
                && (l.contains("WARN") || l.contains("ERROR")));
        watch.start();
        List<Dataset> datasets;
        try {
            datasets = loadDatasets(broker, s3, lifetime.dividedBy(2), load);
            Await.until("the probe's last round", interval.multipliedBy(3).plusSeconds(60), () -> !probe.isAlive());
        } finally {
            watch.stop();
        }

        Verdict v = new Verdict(out);
        v.check(probe.exitValue() == 0, "the probe process exited with " + probe.exitValue() + " (0: every round"
                + " worked)");
        String probeText = Files.readString(probeOut, StandardCharsets.UTF_8);
        long roundsOk = probeText.lines().filter(l -> l.matches("round \\d+ ok.*")).count();
        long probeRenewals = probeText.lines().filter(l -> l.contains("renewed from keytab")).count();
        long tokens = probeText.lines().filter(l -> l.contains("received a new authn token")).count();
        v.check(roundsOk == rounds, "probe rounds ok: " + roundsOk + " of " + rounds);
        v.check(probeRenewals >= lifetimes, "probe renewals: " + probeRenewals + " (at least " + lifetimes + ")");
        v.check(tokens >= lifetimes, "Kudu authentication tokens the probe got with Kerberos: " + tokens
                + " (at least " + lifetimes + ")");
        try (KuduClient admin = kudu.clientAs(PRINCIPAL, keytab)) {
            long rows = rows(admin, admin.openTable("probe"), null);
            v.check(rows == rounds, "probe rows in Kudu: " + rows + " of " + rounds);
            for (Dataset d : datasets) {
                v.check(loaded(d, hdfs, admin), "dataset " + d.name + ": " + describe(d, hdfs, admin));
            }
        }
        String metrics = body(http, httpPort, "/metrics");
        v.check(metrics.contains(KerberosLogin.LOGIN_FAILURES + " 0.0"), "consumer's "
                + KerberosLogin.LOGIN_FAILURES + ": " + metricLine(metrics, KerberosLogin.LOGIN_FAILURES));
        v.check(consumer.isAlive(), "the consumer runs at the end");
        long consumerRenewals = Files.readString(consumerLog, StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("renewed from keytab")).count();
        v.check(consumerRenewals >= lifetimes, "consumer renewals: " + consumerRenewals + " (at least " + lifetimes
                + ")");
        long done = datasets.stream().filter(d -> d.report != null && ConsumerReport.DONE.equals(d.report.status()))
                .count();

        out.println();
        out.println("| client | ran | renewals (at least " + lifetimes + ") | work |");
        out.println("|---|---:|---:|---|");
        out.printf(Locale.ROOT, "| probe (HDFS + Kudu) | %d s | %d | %d of %d rounds ok; %d Kudu tokens |%n",
                load.toSeconds(), probeRenewals, roundsOk, rounds, tokens);
        out.printf(Locale.ROOT, "| consumer daemon | %d s | %d | %d of %d datasets DONE and checked |%n",
                load.toSeconds(), consumerRenewals, done, datasets.size());
        out.println();
        out.println(v.ok() ? "kerberos-soak: OK (" + lifetimes + " lifetimes of " + ticketSeconds + " s, "
                + seconds() + " s in all)" : "kerberos-soak: FAILED: " + String.join("; ", v.failed));
        return v.ok() ? 0 : 1;
    }

    private static boolean loaded(Dataset d, KerberizedHdfs hdfs, KuduClient admin) throws Exception {
        if (d.report == null || !ConsumerReport.DONE.equals(d.report.status()) || d.report.hdfsPath() == null) {
            return false;
        }
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(d.report.hdfsPath());
        return hdfs.fileSystem().exists(file) && "eventindex".equals(hdfs.fileSystem().getFileStatus(file).getOwner())
                && rows(admin, admin.openTable(PREFIX + "EVENTS"), d.dspid) == d.events;
    }

    private static String describe(Dataset d, KerberizedHdfs hdfs, KuduClient admin) throws Exception {
        if (d.report == null) {
            return "no report";
        }
        String s = d.report.status() + (d.report.reason() == null ? "" : " (" + d.report.reason() + ")");
        if (d.report.hdfsPath() == null) {
            return s + ", no HDFS file";
        }
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(d.report.hdfsPath());
        boolean exists = hdfs.fileSystem().exists(file);
        return s + ", HDFS file " + (exists ? "owned by " + hdfs.fileSystem().getFileStatus(file).getOwner()
                : "missing") + ", " + rows(admin, admin.openTable(PREFIX + "EVENTS"), d.dspid) + " of " + d.events
                + " rows in Kudu";
    }

    /** One dataset every {@code every} until {@code load} has passed, each waited for (its report). */
    private List<Dataset> loadDatasets(EmbeddedBroker broker, EmbeddedS3 s3, Duration every, Duration load)
            throws Exception {
        StompSettings stomp = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
        LinkedBlockingQueue<ConsumerReport> reports = new LinkedBlockingQueue<>();
        List<Dataset> datasets = new ArrayList<>();
        try (S3Client client = s3Client(s3); StompSender sender = new StompSender(stomp);
             StompQueueWorker listener = new StompQueueWorker("soak-reports", stomp, Queues.SUPERVISOR_CONTROL, 10,
                     m -> reports.add(Json.read(m.body(), ConsumerReport.class)))) {
            listener.start();
            long first = System.nanoTime();
            for (int i = 0; Duration.ofNanos(System.nanoTime() - first).compareTo(load) < 0; i++) {
                long slot = first + every.toNanos() * i;
                // one dataset per slot, so that the loads spread over the ticket lifetimes
                Await.until("dataset slot " + i, every.multipliedBy(2).plus(REPORT_TIMEOUT),
                        () -> System.nanoTime() >= slot);
                Dataset d = dataset(i);
                String key = ObjectKey.of(TASK_ID, "soak" + i, UUID.nameUUIDFromBytes(("soak" + i)
                        .getBytes(StandardCharsets.UTF_8)).toString().replace("-", "")).key();
                client.putObject(PutObjectRequest.builder().bucket(BUCKET).key(key).build(),
                        RequestBody.fromBytes(d.object));
                String url = new S3ObjectUrl(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, key).toString();
                ConsumerSignal signal = new ConsumerSignal(ConsumerSignal.TYPE, "soak-sig-" + i, d.name, CONTAINER,
                        d.dspid, 3, List.of(new SignalObject(url, d.object.length, List.of(d.guid), d.events)),
                        d.events, System.currentTimeMillis());
                sender.send(Queues.CONSUMER, Json.write(signal), Map.of());
                ConsumerReport r = reports.poll(REPORT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                d.report = r;
                datasets.add(d);
                progress("dataset " + i + " " + (r == null ? "no report in " + REPORT_TIMEOUT.toSeconds() + " s"
                        : r.status() + (r.reason() == null ? "" : " (" + r.reason() + ")")));
                if (r == null || !r.signalId().equals(signal.signalId())) {
                    break;
                }
            }
        }
        return datasets;
    }

    /** Dataset {@code i}: one object of one input file, {@code 5 + i} events of run 327636. */
    private static Dataset dataset(int i) {
        String name = DATASET + String.format(Locale.ROOT, "%02d", i % 100);
        String guid = "SOAK-" + i;
        int events = 5 + i;
        long firstEvent = 1000L * i + 1;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SpbWriter w = new SpbWriter(bytes)) {
            w.header(Header_p1.newBuilder().setStartProcTime(1000 + i).setTaskID(TASK_ID).setJobID("soak" + i)
                    .setInputDsName(name).setProvenanceRef(true).setTriggerInfo(true).build());
            w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1000 + i).setAMITag("f838_m1824")
                    .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(guid).build());
            w.triggerMenu(TriggerMenu_p1.newBuilder().setSMK(2747).setL1PSK(19).setHLTPSK(8)
                    .setL1Menu("L1_EM3;L1_MU4").build());
            int run = DatasetName.parse(name).runNumber();
            for (int e = 0; e < events; e++) {
                w.event(EIEvent_p1.newBuilder().setRunNumber(run).setEventNumber(firstEvent + e).setLumiBlock(100)
                        .setTimeStamp(1_497_000_000).setTimeStampNSOffset(5).setBcid(7).setIsSimulation(false)
                        .setIsCalibration(false).setIsTestBeam(false).setSMK(2747).setHLTPSK(8).setL1PSK(19)
                        .build());
            }
            w.endGuid(1_600_000_100L + firstEvent);
            w.finish(1_600_000_100L + firstEvent);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Dataset(name, 700 + i, guid, events, bytes.toByteArray());
    }

    private static final class Dataset {
        final String name;
        final int dspid;
        final String guid;
        final int events;
        final byte[] object;
        ConsumerReport report;

        Dataset(String name, int dspid, String guid, int events, byte[] object) {
            this.name = name;
            this.dspid = dspid;
            this.guid = guid;
            this.events = events;
            this.object = object;
        }
    }

    private Path consumerConfig(Path dir, EmbeddedBroker broker, EmbeddedS3 s3, KerberizedHdfs hdfs,
                                KerberizedKudu kudu, Path confDir, Path keytab, int httpPort) throws IOException {
        Properties p = new Properties();
        p.setProperty("consumer.id", "soak-consumer");
        p.setProperty("consumer.brokers", broker.stompEndpoints());
        p.setProperty("consumer.s3.endpoint", s3.endpoint().toString());
        p.setProperty("consumer.s3.bucket", BUCKET);
        p.setProperty("consumer.hdfs.uri", hdfs.uri());
        p.setProperty("consumer.hdfs.root", HDFS_ROOT);
        p.setProperty("consumer.kudu.masters", kudu.masterAddresses());
        p.setProperty("consumer.kudu.table.prefix", PREFIX);
        p.setProperty("consumer.kudu.buckets", "2");
        p.setProperty("consumer.kudu.replicas", "1");
        p.setProperty("consumer.fetch.threads", "1");
        p.setProperty("consumer.spool.dir", dir.resolve("spool").toString());
        p.setProperty("consumer.http.port", String.valueOf(httpPort));
        p.setProperty("consumer.hadoop.conf.dir", confDir.toString());
        p.setProperty("consumer.kerberos.principal", PRINCIPAL);
        p.setProperty("consumer.kerberos.keytab", keytab.toString());
        Path file = dir.resolve("consumer.properties");
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, "bin/kerberos-soak consumer");
        }
        return file;
    }

    private Process consumer(MitKdc kdc, Path config, EmbeddedS3 s3, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(java(), "-Xmx512m", "-XX:+ExitOnOutOfMemoryError",
                "-Djava.security.krb5.conf=" + kdc.krb5Conf(), "-cp", consumerClasspath,
                "org.eventindex.consumer.ConsumerMain", "run", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("EI_S3_ACCESS_KEY", s3.accessKey());
        pb.environment().put("EI_S3_SECRET_KEY", s3.secretKey());
        return pb.start();
    }

    private static S3Client s3Client(EmbeddedS3 s3) {
        return S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder()).build();
    }

    private static long rows(KuduClient client, KuduTable t, Integer dspid) throws Exception {
        KuduScanner.KuduScannerBuilder b = client.newScannerBuilder(t);
        if (dspid != null) {
            b.setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER)).addPredicate(KuduPredicate
                    .newComparisonPredicate(t.getSchema().getColumn(KuduSchemas.DSPID),
                            KuduPredicate.ComparisonOp.EQUAL, dspid));
        }
        KuduScanner scanner = b.build();
        long n = 0;
        while (scanner.hasMoreRows()) {
            n += scanner.nextRows().getNumRows();
        }
        scanner.close();
        return n;
    }

    private static int status(HttpClient http, int port, String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String body(HttpClient http, int port, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String metricLine(String metrics, String name) {
        return metrics.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElse("(absent)");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private String seconds() {
        return String.format(Locale.ROOT, "%.0f", (System.nanoTime() - t0) / 1e9);
    }

    private synchronized void progress(String line) {
        out.printf(Locale.ROOT, "[kerberos-soak %6.1f s] %s%n", (System.nanoTime() - t0) / 1e9, line);
        out.flush();
    }

    /** The checks of the run: each printed, the failed ones kept for the last line. */
    private static final class Verdict {
        private final PrintStream out;
        private final List<String> failed = new ArrayList<>();

        Verdict(PrintStream out) {
            this.out = out;
        }

        void check(boolean ok, String what) {
            out.println((ok ? "ok      " : "FAILED  ") + what);
            if (!ok) {
                failed.add(what);
            }
        }

        boolean ok() {
            return failed.isEmpty();
        }
    }

    /** Prints the lines of interest of the clients' logs as they are written. */
    private static final class LogWatch {
        private final java.util.function.Consumer<String> sink;
        private final List<Followed> files = new ArrayList<>();
        private final Thread thread;
        private volatile boolean running = true;

        LogWatch(java.util.function.Consumer<String> sink) {
            this.sink = sink;
            this.thread = new Thread(this::loop, "kerberos-soak-logs");
            this.thread.setDaemon(true);
        }

        void follow(String name, Path file, Predicate<String> interesting) {
            files.add(new Followed(name, file, interesting));
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(5_000);
            poll();
        }

        private void loop() {
            while (running) {
                poll();
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
            }
        }

        private synchronized void poll() {
            for (Followed f : files) {
                try {
                    if (!Files.exists(f.file)) {
                        continue;
                    }
                    List<String> lines = Files.readAllLines(f.file, StandardCharsets.UTF_8);
                    for (int i = f.seen; i < lines.size(); i++) {
                        if (f.interesting.test(lines.get(i))) {
                            sink.accept(f.name + ": " + lines.get(i).strip());
                        }
                    }
                    f.seen = lines.size();
                } catch (IOException | UncheckedIOException e) {
                    // a line half written: read again at the next poll
                }
            }
        }

        private static final class Followed {
            final String name;
            final Path file;
            final Predicate<String> interesting;
            int seen;

            Followed(String name, Path file, Predicate<String> interesting) {
                this.name = name;
                this.file = file;
                this.interesting = interesting;
            }
        }
    }
}
