package org.eventindex.distribution;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.eventindex.ProjectVersion;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.deploy.EmbeddedStack;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventCounts;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tarball as an operator installs it: unpacked into an empty folder (its path holding a space), its conf/ examples
 * turned into a site configuration pointed at the embedded stack's services (real broker with per-role logins, S3
 * server, HDFS, Kudu binaries), and every daemon and tool run from the unpacked tree only through bin/eventindex:
 * kudu-loader create-tables, eventindex check of both daemons' files (every check OK), the supervisor, a consumer
 * (logging JSON lines), generate, the producer jar for one
 * dataset, the lookup and lookup serve. The dataset ends DONE with the generated events in Kudu. Also: lib/ holds no
 * test artifact, every jar carries the version, the daemons' command lines name nothing outside the unpacked tree
 * (no source tree, no ~/.m2), and their first log line carries the version with an ISO-8601 timestamp and zone.
 */
final class DistributionIT {
    private static final String VERSION = System.getProperty("ei.project.version", "0.2.0-SNAPSHOT");
    private static final Path TARBALL = Path.of(System.getProperty("ei.distribution.tarball",
            "target/eventindex-" + VERSION + ".tar.gz")).toAbsolutePath();
    /** The source tree the tarball was built from: nothing run from the unpacked tree may point into it. */
    private static final Path SOURCE_TREE = TARBALL.getParent().getParent().getParent().normalize();
    private static final Path M2 = Path.of(System.getProperty("user.home"), ".m2");
    private static final String DATASET = "data16_13TeV.00311321.physics_Main.merge.AOD.f758_m1616";
    private static final Duration STEP = Duration.ofMinutes(3);
    /** The Kerberos and Hadoop options of the examples (issue 21, item 2). */
    private static final Set<String> CLUSTER_ACCESS_OPTIONS = Set.of("--hadoop-conf-dir", "--kerberos-principal",
            "--kerberos-keytab");
    /** e.g. 2026-11-26T03:04:05.678+00:00 INFO ... */
    private static final Pattern ISO_LINE = Pattern.compile(
            "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{2}:\\d{2} INFO .*");

    @TempDir
    Path temp;

    private final List<Process> daemons = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private EmbeddedStack stack;

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : daemons) {
            p.destroy();
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly().waitFor();
            }
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void theUnpackedTarballRunsOneDatasetEndToEndAgainstTheEmbeddedStack() throws Exception {
        assertTrue(Files.isRegularFile(TARBALL), "no tarball " + TARBALL + ": build with mvn -DskipTests package");
        Path install = Files.createDirectories(temp.resolve("opt with space"));
        try (Stream<Path> before = Files.list(install)) {
            assertEquals(0, before.count(), "the install folder is not empty");
        }
        Command untar = run(List.of("tar", "xzf", TARBALL.toString(), "-C", install.toString()), Map.of(), install);
        assertEquals(0, untar.exit(), untar.output());
        Path home = install.resolve("eventindex-" + VERSION);
        Path lib = home.resolve("lib");
        assertEquals(List.of(), LibContents.problems(lib, VERSION), "lib/ of " + TARBALL);

        // Through a symlink, from another folder: the launcher finds its home all the same.
        Path link = Files.createSymbolicLink(temp.resolve("eventindex"), home.resolve("bin/eventindex"));
        Command help = run(List.of(link.toString(), "--help"), Map.of(), temp);
        assertEquals(0, help.exit(), help.output());
        for (String documented : List.of("JAVA_HOME", "EVENTINDEX_JAVA_OPTS", "EVENTINDEX_LOG_FORMAT", "kudu-loader")) {
            assertTrue(help.output().contains(documented), "bin/eventindex --help lacks " + documented);
        }
        Command version = run(List.of(link.toString(), "--version"), Map.of(), temp);
        // the version and the git commit, as every command's (the same build made both)
        assertEquals(new Command(0, "eventindex " + ProjectVersion.describe() + "\n"), version);
        for (String cmd : List.of("generate", "producer", "supervisor", "consumer", "kudu-loader", "lookup",
                "broker-watchdog", "status", "sizing", "check")) {
            Command v = run(List.of(link.toString(), cmd, "--version"), Map.of(), temp);
            assertEquals(0, v.exit(), v.output());
            assertTrue(v.output().strip().matches("(eventindex[- ])?" + cmd + " "
                            + Pattern.quote(ProjectVersion.describe())),
                    cmd + " --version: " + v.output());
            // the usage names the command as typed, the producer's too (not 'java -jar ...', not a class)
            Command h = run(List.of(link.toString(), cmd, "--help"), Map.of(), temp);
            assertEquals(0, h.exit(), h.output());
            assertTrue(h.output().startsWith("Usage: eventindex " + cmd + " "), cmd + " --help: " + h.output());
        }

        stack = EmbeddedStack.startServices(EmbeddedStack.Options.defaults(temp.resolve("stack")), step -> { });
        Path site = siteConfiguration(home.resolve("conf"));
        Path bin = home.resolve("bin/eventindex");
        Map<String, String> env = Map.of("EVENTINDEX_CONF_DIR", site.toString(),
                "JAVA_HOME", System.getProperty("java.home"));

        // kudu-loader create-tables with the options of conf/kudu-loader.env
        List<String> createTables = new ArrayList<>(List.of(bin.toString(), "kudu-loader", "create-tables"));
        createTables.addAll(siteOptions(home.resolve("conf/kudu-loader.env"), "kudu-loader", "create-tables"));
        createTables.addAll(List.of("--epoch", "1"));
        Command created = run(createTables, env, temp);
        assertEquals(0, created.exit(), created.output());

        // eventindex check with the site's files, as an operator runs it before the first start: every line OK
        for (String daemon : List.of("supervisor", "consumer")) {
            Command checked = run(List.of(bin.toString(), "check", daemon, "--config",
                    site.resolve(daemon + ".properties").toString()), env, temp);
            assertEquals(0, checked.exit(), checked.output());
            assertTrue(checked.output().contains("checks passed") && checked.output().contains("OK   broker "),
                    checked.output());
        }

        Map<String, String> daemonEnv = new LinkedHashMap<>(env);
        daemonEnv.put("EVENTINDEX_JAVA_OPTS", "-Dei.dist.marker=yes -Xms256m -Xmx768m");
        Daemon supervisorDaemon = runDaemon(bin, site, "supervisor", SupervisorConfig.HTTP_PORT, daemonEnv);
        Map<String, String> jsonEnv = new LinkedHashMap<>(daemonEnv);
        jsonEnv.put("EVENTINDEX_LOG_FORMAT", "json");
        Daemon consumerDaemon = runDaemon(bin, site, "consumer", ConsumerConfig.HTTP_PORT, jsonEnv);
        Process supervisor = supervisorDaemon.process();
        int supervisorPort = supervisorDaemon.port();
        Process consumer = consumerDaemon.process();
        int consumerPort = consumerDaemon.port();

        // The daemons run from the unpacked tree only, with the JVM options of jvm/ and then the environment's.
        for (Process p : List.of(supervisor, consumer)) {
            List<String> cmdline = commandLine(p);
            checkConfinedTo(home, cmdline);
            assertTrue(cmdline.get(0).startsWith(System.getProperty("java.home")), "JAVA_HOME not used: " + cmdline);
            assertTrue(cmdline.contains("-XX:+ExitOnOutOfMemoryError"), "the jvm/ defaults missing: " + cmdline);
            int marker = cmdline.indexOf("-Dei.dist.marker=yes");
            assertTrue(marker > 0 && cmdline.lastIndexOf("-Xmx768m") > cmdline.indexOf("-XX:+ExitOnOutOfMemoryError"),
                    "EVENTINDEX_JAVA_OPTS must follow the options file: " + cmdline);
        }
        checkFirstLogLine(logOf("supervisor"), "supervisor", supervisor.pid());
        checkJsonLog(logOf("consumer"), "consumer", consumer.pid());
        checkBuildInfo("supervisor", supervisorPort);
        checkBuildInfo("consumer", consumerPort);

        // One dataset: generated by bin/eventindex generate, registered, sent by the producer jar.
        Path generated = temp.resolve("generated");
        Command generate = run(List.of(bin.toString(), "generate", "--dataset", DATASET, "--out", generated.toString(),
                "--files", "4", "--events-per-file", "500", "--files-per-job", "2", "--duplicated-jobs", "1",
                "--crashed-jobs", "0", "--cross-file-duplicates", "10", "--seed", "7"), env, temp);
        assertEquals(0, generate.exit(), generate.output());
        GeneratedDataset expected = new DatasetGenerator(new GeneratorSpec(DATASET, 4, 500, 2, 1, 0, 10, false, 7L))
                .generate(temp.resolve("expected"));
        Path secrets = stack.secretsDir();
        // with the options of conf/operator.env (the operator login; TLS left out: the stack's broker is plain)
        List<String> registerManifest = new ArrayList<>(List.of(bin.toString(), "supervisor", "register-manifest",
                "--file", generated.resolve(DATASET + ".manifest.json").toString()));
        registerManifest.addAll(siteOptions(home.resolve("conf/operator.env"), "supervisor", "register-manifest"));
        assertEquals(BrokerLogins.OPERATOR, optionValue(registerManifest, "--user"), "login of conf/operator.env");
        Command register = run(registerManifest, env, temp);
        assertEquals(0, register.exit(), register.output());
        // The site at a glance from the unpacked tree: the supervisor active, its broker subscribed, the dataset.
        Command status = run(List.of(bin.toString(), "status", "--url", "http://127.0.0.1:" + supervisorPort), env,
                temp);
        assertEquals(0, status.exit(), status.output());
        String brokerPort = ":" + stack.broker().stompEndpoints().replaceFirst(".*:", "");
        assertTrue(status.output().lines().anyMatch(l -> l.contains(brokerPort) && l.contains(" yes ")
                && l.contains("3/3")), "eventindex status, the broker: " + status.output());
        assertTrue(status.output().lines().anyMatch(l -> l.startsWith(DATASET)), status.output());

        // A level changed in logback.xml while the supervisor runs: its DEBUG line on a manifest registered again.
        Path logback = site.resolve("logback.xml");
        Files.writeString(logback, Files.readString(logback).replace("<logger name=\"org.eventindex\" level=\"INFO\"/>",
                "<logger name=\"org.eventindex\" level=\"INFO\"/>\n  <logger name=\"org.eventindex.supervisor\""
                        + " level=\"DEBUG\"/>"));
        Await.until("the supervisor's DEBUG line after logback.xml changed", STEP, () -> {
            try {
                assertEquals(0, run(registerManifest, env, temp).exit(), "register-manifest again");
            } catch (IOException | InterruptedException e) {
                throw new AssertionError("register-manifest again", e);
            }
            return read(logOf("supervisor")).contains(" DEBUG ");
        });
        List<GeneratedJob> jobs = expected.jobs(GeneratedJob.Outcome.REPORTED);
        for (GeneratedJob job : jobs) {
            Command produce = run(List.of(bin.toString(), "producer",
                    generated.resolve(job.spbFile().getFileName()).toString(),
                    "--brokers", stack.broker().stompEndpoints(), "--s3-endpoint", stack.s3().endpoint().toString(),
                    "--bucket", stack.options().bucket(), "--user", BrokerLogins.PRODUCER,
                    "--password-file", BrokerLogins.passwordFile(secrets, BrokerLogins.PRODUCER).toString(),
                    "--access-key", EmbeddedStack.S3_ACCESS_KEY,
                    "--secret-key-file", stack.s3SecretKeyFile().toString()), env, temp);
            assertEquals(0, produce.exit(), produce.output());
        }

        String view = "/datasets/" + DATASET;
        Await.until(DATASET + " DONE at the supervisor's " + view, STEP, () -> {
            assertTrue(supervisor.isAlive(), "the supervisor exited; log " + logOf("supervisor"));
            return DaemonProcesses.get(http, supervisorPort, view).map(HttpResponse::body).orElse("")
                    .contains("\"state\":\"DONE\"");
        });
        DatasetQueries queries = stack.kuduQueries();
        DatasetsRow row = queries.dataset(DATASET).orElseThrow(() -> new AssertionError("no DATASETS row"));
        EventCounts counts = queries.countEvents(row.dspid(), row.rgid());
        assertEquals(expected.expectedUniqueEvents(), counts.events(), "EVENTS rows of " + DATASET);
        assertEquals(expected.crossFileDuplicates(), counts.duplicates(), "DUPLICATEDEVENTS rows of " + DATASET);

        // The lookup, one event of the dataset, with the options of conf/lookup.env
        long event = oneEventNumber(stack, row.dspid());
        int run = 311321;
        List<String> lookupOptions = siteOptions(home.resolve("conf/lookup.env"), "lookup", "serve");
        Path events = Files.writeString(temp.resolve("events.txt"), run + " " + event + "\n");
        List<String> lookup = new ArrayList<>(List.of(bin.toString(), "lookup"));
        lookup.addAll(withoutHttpOptions(lookupOptions));
        lookup.add(events.toString());
        Command found = run(lookup, env, temp);
        assertEquals(0, found.exit(), found.output());
        assertTrue(found.output().contains(Long.toString(event)) && !found.output().contains("NOT_FOUND"),
                "lookup of " + run + " " + event + ": " + found.output());

        List<String> serve = new ArrayList<>(List.of(bin.toString(), "lookup", "serve"));
        serve.addAll(lookupOptions);
        // lookup serve logs to a file (EVENTINDEX_LOG_DIR); its standard output keeps the 'listening on' line only.
        Path logDir = temp.resolve("var log eventindex");
        Map<String, String> fileLogEnv = new LinkedHashMap<>(daemonEnv);
        fileLogEnv.put("EVENTINDEX_LOG_DIR", logDir.toString());
        Process server = start("lookup", serve, fileLogEnv);
        int lookupPort = Integer.parseInt(optionValue(serve, "--port"));
        // /health answers as soon as it serves, /ready once Kudu answered
        awaitHttp(server, "lookup", lookupPort, "/ready");
        HttpResponse<String> answer = DaemonProcesses.get(http, lookupPort, "/events/" + run + "/" + event)
                .orElseThrow(() -> new AssertionError("lookup serve did not answer"));
        assertEquals(200, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains(Long.toString(event)), answer.body());
        checkConfinedTo(home, commandLine(server));
        checkFirstLogLine(logDir.resolve("lookup.log"), "lookup", server.pid());
        assertTrue(read(logOf("lookup")).startsWith("listening on http://127.0.0.1:" + lookupPort),
                "lookup serve's standard output: " + read(logOf("lookup")));
        checkBuildInfo("lookup", lookupPort);

        // SIGTERM: each daemon stops cleanly (systemd counts 0 and 143 as success: systemd/*.service).
        for (Process p : List.of(server, consumer, supervisor)) {
            p.destroy();
            assertTrue(p.waitFor(STEP.toSeconds(), TimeUnit.SECONDS), "no exit within " + STEP + " of SIGTERM");
            assertTrue(Set.of(0, 143).contains(p.exitValue()), "exit status after SIGTERM: " + p.exitValue());
        }
    }

    /** The site's configuration folder: conf/ copied, the two daemons' files derived from the examples. */
    private Path siteConfiguration(Path conf) throws IOException {
        Path site = temp.resolve("etc eventindex");
        SiteConfiguration.write(conf, site, new SiteConfiguration.Services(stack.broker().stompEndpoints(),
                stack.secretsDir(), stack.s3().endpoint().toString(), stack.options().bucket(),
                EmbeddedStack.S3_ACCESS_KEY, stack.s3SecretKeyFile(), stack.hdfs().uri(), stack.hdfsRoot(),
                stack.kuduMasters()), hadoopConfiguration(), temp.resolve("var/lib/eventindex"), "127.0.0.1");
        // The test does not wait 30 s for a changed level: the same file, scanned every second.
        Path logback = site.resolve("logback.xml");
        String scanned = Files.readString(logback);
        assertTrue(scanned.contains("scanPeriod=\"30 seconds\""), "no 30 s scan in " + logback);
        Files.writeString(logback, scanned.replace("scanPeriod=\"30 seconds\"", "scanPeriod=\"1 seconds\""));
        return site;
    }

    /** The site's Hadoop configuration folder ({@link SiteConfiguration#hadoopConfiguration}), made once. */
    private Path hadoopConfiguration() throws IOException {
        Path dir = temp.resolve("hadoop conf");
        return Files.isDirectory(dir) ? dir : SiteConfiguration.hadoopConfiguration(dir, stack.hdfs().uri());
    }

    /**
     * The options of a conf/*.env example (VAR="options" lines, in order), pointed at the stack: the Kudu masters,
     * one replica, a free HTTP port on loopback, the brokers and the login's password file; Kerberos and TLS left out
     * (the stack has neither) and the Hadoop options kept only where this build's command has them.
     */
    private List<String> siteOptions(Path envExample, String... command) throws IOException, InterruptedException {
        Pattern line = Pattern.compile("^([A-Z_]+)=\"([^\"]*)\"$");
        List<String> options = new ArrayList<>();
        for (String l : Files.readAllLines(envExample)) {
            if (l.isBlank() || l.startsWith("#")) {
                continue;
            }
            Matcher m = line.matcher(l);
            assertTrue(m.matches(), "not a VAR=\"options\" line in " + envExample + ": " + l);
            options.addAll(List.of(m.group(2).trim().split("\\s+")));
        }
        List<String> help = new ArrayList<>(List.of(temp.resolve("eventindex").toString()));
        help.addAll(List.of(command));
        help.add("--help");
        String usage = run(help, Map.of(), temp).output();
        List<String> site = new ArrayList<>();
        String user = null; // the login of --user, whose password file the stack holds
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            boolean takesValue = !o.contains("=") && i + 1 < options.size() && !options.get(i + 1).startsWith("--");
            String value = takesValue ? options.get(++i) : null;
            if (CLUSTER_ACCESS_OPTIONS.contains(o)) {
                if (o.equals("--hadoop-conf-dir") && usage.contains(o)) {
                    site.addAll(List.of(o, hadoopConfiguration().toString()));
                }
                continue;
            }
            assertTrue(usage.contains(o.split("=")[0]), o + " of " + envExample + " is not an option of "
                    + String.join(" ", command) + ": " + usage);
            if (Set.of("--tls", "--trust-store", "--trust-store-password-file").contains(o)) {
                continue; // the stack's broker takes plain STOMP
            }
            if (o.equals("--http-config")) {
                continue; // the site's HTTPS and logins (HttpAccessIT); the stack's lookup serves plain HTTP
            }
            switch (o) {
                case "--brokers" -> value = stack.broker().stompEndpoints();
                case "--user" -> user = value;
                case "--password-file" -> value = BrokerLogins.passwordFile(stack.secretsDir(), user).toString();
                case "--masters" -> value = stack.kuduMasters();
                case "--replicas" -> value = "1";
                case "--bind" -> value = "127.0.0.1";
                case "--port" -> value = Integer.toString(Ports.free());
                default -> { }
            }
            site.add(o);
            if (value != null) {
                site.add(value);
            }
        }
        return site;
    }

    /** The lookup command (not serve) takes the Kudu options only: the HTTP ones of lookup.env are left out. */
    private static List<String> withoutHttpOptions(List<String> args) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (Set.of("--bind", "--port", "--max-concurrent", "--max-batch").contains(a)) {
                i++;
                continue;
            }
            out.add(a);
        }
        return out;
    }

    private static String optionValue(List<String> args, String option) {
        int i = args.indexOf(option);
        assertTrue(i >= 0 && i + 1 < args.size(), option + " not in " + args);
        return args.get(i + 1);
    }

    /** The process' command line: the unpacked tree's java options and lib/ only, nothing of the source or ~/.m2. */
    private static void checkConfinedTo(Path home, List<String> cmdline) {
        int cp = cmdline.indexOf("-cp");
        assertTrue(cp > 0, "no -cp in " + cmdline);
        for (String entry : cmdline.get(cp + 1).split(":")) {
            assertTrue(entry.startsWith(home.resolve("lib") + "/") && entry.endsWith(".jar"),
                    "class path entry outside lib/: " + entry);
        }
        String all = String.join(" ", cmdline);
        assertFalse(all.contains(M2.toString()), "~/.m2 on the command line: " + all);
        assertFalse(all.contains(SOURCE_TREE + "/"), "the source tree " + SOURCE_TREE + " on the command line: " + all);
    }

    private static void checkFirstLogLine(Path log, String daemon, long pid) throws IOException {
        String first = Files.readAllLines(log).stream().findFirst().orElse("");
        assertTrue(ISO_LINE.matcher(first).matches(), "first line of " + log + " has no ISO-8601 time: " + first);
        assertTrue(first.endsWith(" - " + startLine(daemon, pid)), "first line of " + log + ": " + first);
    }

    /** EVENTINDEX_LOG_FORMAT=json: every log line is a JSON object with an ISO time; the first carries the version. */
    private static void checkJsonLog(Path log, String daemon, long pid) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
        assertFalse(lines.isEmpty(), log + " is empty");
        for (String l : lines) {
            JsonNode node;
            try {
                node = json.readTree(l);
            } catch (JsonProcessingException e) {
                throw new AssertionError("line " + (lines.indexOf(l) + 1) + " of " + log + " is not JSON: " + l
                        + "\nthe whole log:\n" + String.join("\n", lines), e);
            }
            assertTrue(node.isObject() && node.has("level") && node.has("timestamp"), "not a log object: " + l);
            // ISO-8601 with date and zone (conf/logback/json-*.xml: IsoTimeJsonEncoder), the same instant
            Instant time = OffsetDateTime.parse(node.path("time").asText()).toInstant();
            assertEquals(node.path("timestamp").asLong(), time.toEpochMilli(), "\"time\" of " + l);
        }
        assertEquals(startLine(daemon, pid), json.readTree(lines.get(0)).path("formattedMessage").asText(),
                "first JSON line of " + log);
    }

    /** The daemons run on this test's Java (JAVA_HOME), so its version is theirs. */
    private static String startLine(String daemon, long pid) {
        return "eventindex-" + daemon + " " + VERSION + " starting (Java " + Runtime.version() + ", pid " + pid + ")";
    }

    private void checkBuildInfo(String daemon, int port) {
        String metrics = DaemonProcesses.get(http, port, "/metrics").map(HttpResponse::body).orElse("");
        String expected = "\neventindex_build_info{daemon=\"" + daemon + "\",dirty=\"" + ProjectVersion.dirty()
                + "\",revision=\"" + ProjectVersion.commit() + "\",version=\"" + VERSION + "\"} 1";
        assertTrue(metrics.contains(expected), daemon + " /metrics lacks" + expected + ": " + metrics);
    }

    /** An event number of the dataset {@code dspid} in the stack's EVENTS table. */
    static long oneEventNumber(EmbeddedStack stack, int dspid) throws IOException {
        try (KuduClient kudu = new KuduClient.KuduClientBuilder(stack.kuduMasters()).build()) {
            KuduTable events = kudu.openTable(stack.tablesConfig().eventsTable());
            KuduScanner scanner = kudu.newScannerBuilder(events)
                    .setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER))
                    .addPredicate(KuduPredicate.newComparisonPredicate(events.getSchema().getColumn(KuduSchemas.DSPID),
                            KuduPredicate.ComparisonOp.EQUAL, dspid))
                    .limit(1).build();
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    return r.getLong(KuduSchemas.EVENTNUMBER);
                }
            }
            throw new AssertionError("no EVENTS row of dspid " + dspid);
        }
    }

    private record Command(int exit, String output) {
    }

    private record Daemon(Process process, int port) {
    }

    /** {@code <daemon> run --config <site>/<daemon>.properties}, once it answers /health on its configured port. */
    private Daemon runDaemon(Path bin, Path site, String daemon, String portKey, Map<String, String> env)
            throws IOException {
        Path config = site.resolve(daemon + ".properties");
        Process p = start(daemon, List.of(bin.toString(), daemon, "run", "--config", config.toString()), env);
        int port = Integer.parseInt(SiteConfiguration.properties(config).getProperty(portKey));
        awaitHttp(p, daemon, port, "/health");
        return new Daemon(p, port);
    }

    private Path logOf(String daemon) {
        return temp.resolve("logs").resolve(daemon + ".log");
    }

    /** Starts a daemon of the unpacked tree, its standard output and error in logs/<daemon>.log. */
    private Process start(String daemon, List<String> args, Map<String, String> env) throws IOException {
        Files.createDirectories(logOf(daemon).getParent());
        ProcessBuilder pb = new ProcessBuilder(args).directory(temp.toFile()).redirectErrorStream(true)
                .redirectOutput(logOf(daemon).toFile());
        clean(pb, env);
        Process p = pb.start();
        daemons.add(p);
        return p;
    }

    private void awaitHttp(Process p, String daemon, int port, String path) {
        Await.until(daemon + " answering " + path + " on port " + port, STEP, () -> {
            assertTrue(p.isAlive(), daemon + " exited with " + (p.isAlive() ? "" : p.exitValue()) + "; log "
                    + logOf(daemon) + ": " + read(logOf(daemon)));
            return DaemonProcesses.get(http, port, path).map(r -> r.statusCode() == 200).orElse(false);
        });
    }

    /** Runs a command of the unpacked tree to its end: exit status and output (standard error included). */
    private static Command run(List<String> args, Map<String, String> env, Path dir) throws IOException,
            InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(args).directory(dir.toFile()).redirectErrorStream(true);
        clean(pb, env);
        Process p = pb.start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!p.waitFor(STEP.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(args + " did not exit within " + STEP + ": " + out);
        }
        return new Command(p.exitValue(), out);
    }

    /** No EVENTINDEX_, EI_, JAVA_ or Hadoop variable of the test's environment leaks into the installed commands. */
    private static void clean(ProcessBuilder pb, Map<String, String> env) {
        pb.environment().keySet().removeIf(k -> k.startsWith("EVENTINDEX_") || k.startsWith("EI_")
                || k.startsWith("JAVA_") || k.startsWith("HADOOP_") || k.equals("CLASSPATH"));
        pb.environment().putAll(env);
    }

    /** The command line of a running process, from /proc. */
    static List<String> commandLine(Process p) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
        return List.of(new String(raw, StandardCharsets.UTF_8).split("\0"));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
