package org.eventindex.distribution;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
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
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.MetricsText;
import org.eventindex.testing.Ports;
import org.eventindex.testing.Prerequisites;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A running site upgraded from a released distribution to this build, role by role as docs/operations.md
 * ("Upgrading a site, role by role") has an operator do it, while datasets are in flight; every dataset must end in
 * Kudu exactly once. Run by {@code bin/upgrade-test} (which builds the release with {@code bin/build-release}) and
 * only when {@code ei.upgrade.from} names the released tarball: it takes minutes, not the suite's seconds.
 *
 * <p>The site: two independent brokers, an S3 server, HDFS and Kudu ({@link EmbeddedStack#startServices}), one
 * ZooKeeper server; from the released tarball, a supervisor pair (lease in ZooKeeper, journal on HDFS), two consumers
 * and the lookup service, each a process of its own installation, the site's configuration in one folder outside both
 * installations (made from the release's {@code conf/}, its {@code jvm/consumer.options} edited by the site). Grid
 * jobs send datasets with the released producer jar the whole time (grid producers lag). The upgrade: the new tables'
 * columns ({@code create-tables}), the brokers one at a time, the standby supervisor, then the hand-over to it and the
 * old active restarted as the new standby (one dataset's manifest and first job sent to the old active, its other
 * jobs to the new one), the consumers one at a time, the lookup service; the site's JVM options
 * reduced to its own lines as the guide says for a release before the defaults moved to {@code jvm/}. Then one dataset
 * with this build's producer. Checked: every dataset DONE at the active supervisor, its DATASETS row, its EVENTS and
 * DUPLICATEDEVENTS counts those of the generator, one consolidated file each on HDFS, EVENTS holding the sum of all
 * datasets and nothing more, no message in a dead-letter queue, a lookup answered by the new service, and the new
 * consumers started with this build's JVM defaults followed by the site's options.
 */
@EnabledIfSystemProperty(named = UpgradeIT.FROM_PROPERTY, matches = ".+")
final class UpgradeIT {
    static final String FROM_PROPERTY = "ei.upgrade.from";
    /** A file the progress lines are appended to as they come (bin/upgrade-test prints it), besides the log. */
    static final String PROGRESS_PROPERTY = "ei.upgrade.progress";
    /** A folder the logs of the daemons and commands are copied to at the end (target/upgrade-test-logs). */
    static final String LOGS_PROPERTY = "ei.upgrade.logs";
    private static final Logger LOG = LoggerFactory.getLogger(UpgradeIT.class);
    private static final Pattern TARBALL_NAME = Pattern.compile("eventindex-(.+)\\.tar\\.gz");
    /** Each wait of the test: generous, the test runs beside other builds on 2 cores (load 30-50 seen). */
    private static final Duration STEP = Duration.ofMinutes(5);
    /** How long a command (generate, register-manifest, the producer, create-tables) may take. */
    private static final int COMMAND_MINUTES = 6;
    /** The site's own JVM options, added to the release's jvm/consumer.options copy (a smaller heap: 2 cores here). */
    private static final List<String> SITE_CONSUMER_OPTIONS = List.of("-Xms512m", "-Xmx768m", "-Dsite.option=kept");
    private static final List<String> SITE_SUPERVISOR_OPTIONS = List.of("-Xms256m", "-Xmx512m");
    private static final int RUN = 311321;
    /** The dataset whose objects are sent half before the supervisors' hand-over, half after. */
    private static final int ACROSS = 99;

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final Map<String, GeneratedDataset> sent = new ConcurrentHashMap<>();
    private final long start = System.nanoTime();
    private EmbeddedStack stack;
    private ZooKeeperEnsemble zookeeper;
    private Path site;
    private Map<String, String> env;

    /** A daemon process of one installation, its ops port. */
    private record Daemon(String name, InstalledTree tree, Process process, int port) {
    }

    @AfterEach
    void stop() throws InterruptedException, IOException {
        for (Process p : processes) {
            p.destroy();
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly().waitFor();
            }
        }
        String keep = System.getProperty(LOGS_PROPERTY, "");
        Path logs = temp.resolve("logs");
        if (!keep.isEmpty() && Files.isDirectory(logs)) {
            Path to = Files.createDirectories(Path.of(keep));
            try (var files = Files.list(logs)) {
                for (Path f : files.toList()) {
                    Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void aSiteUpgradedRoleByRoleFromTheReleaseWithDatasetsInFlightLosesNothing() throws Exception {
        Path fromTarball = Path.of(System.getProperty(FROM_PROPERTY)).toAbsolutePath();
        Matcher name = TARBALL_NAME.matcher(fromTarball.getFileName().toString());
        assertTrue(Files.isRegularFile(fromTarball) && name.matches(), "no released tarball " + fromTarball);
        Files.createDirectories(temp.resolve("logs"));
        InstalledTree old = InstalledTree.unpack(fromTarball, name.group(1),
                Files.createDirectories(temp.resolve("opt/old")));
        InstalledTree current = InstalledTree.unpack(InstalledTree.TARBALL, InstalledTree.VERSION,
                Files.createDirectories(temp.resolve("opt/new")));
        progress("unpacked " + old.home().getFileName() + " and " + current.home().getFileName());

        stack = EmbeddedStack.startServices(EmbeddedStack.Options.defaults(temp.resolve("stack")).withBrokers(2),
                this::progress);
        zookeeper = ZooKeeperEnsemble.start(temp.resolve("zookeeper"), 1);
        writeSiteConfiguration(old);
        env = Map.of("EVENTINDEX_CONF_DIR", site.toString(), "JAVA_HOME", System.getProperty("java.home"));
        createTables(old);

        Daemon supervisorA = startSupervisor(old, "a");
        awaitStatus(supervisorA, "/ready", 200);
        Daemon supervisorB = startSupervisor(old, "b");
        awaitRole(supervisorB, "standby");
        Daemon consumer1 = startConsumer(old, 1);
        Daemon consumer2 = startConsumer(old, 2);
        Daemon lookup = startLookup(old);
        progress("the " + old.home().getFileName() + " site runs: supervisors a (active) and b (standby), consumers 1"
                + " and 2, lookup serve, 2 brokers");

        send(old, 0);
        awaitDone(supervisorA, List.of(datasetName(0)));
        progress("dataset 0 DONE before the upgrade");

        // Grid jobs keep sending datasets with the released producer jar while the site is upgraded.
        AtomicBoolean upgrading = new AtomicBoolean(true);
        CompletableFuture<Integer> grid = CompletableFuture.supplyAsync(() -> {
            int i = 1;
            try {
                while (upgrading.get() || i < 4) {
                    send(old, i++);
                }
            } catch (IOException | InterruptedException e) {
                throw new AssertionError("sending dataset " + i, e);
            }
            return i - 1;
        });

        long upgradeStart = System.nanoTime();
        Map<String, Double> stepSeconds = new LinkedHashMap<>();
        long t = System.nanoTime();
        createTables(current);
        stepSeconds.put("create-tables", seconds(t));

        t = System.nanoTime();
        for (EmbeddedBroker broker : stack.brokers()) {
            progress("broker " + broker.stompEndpoints() + ": stopped for its upgrade (" + sent.size()
                    + " datasets sent)");
            broker.stop();
            awaitSubscribed(supervisorA, broker, false);
            broker.restart();
            for (Daemon d : List.of(supervisorA, consumer1, consumer2)) {
                awaitSubscribed(d, broker, true);
                awaitStatus(d, "/ready", 200);
            }
            progress("broker " + broker.stompEndpoints() + ": back, the active supervisor and the consumers subscribed"
                    + " to it again");
        }
        stepSeconds.put("brokers, one at a time", seconds(t));

        keepOnlyTheSitesJvmOptions(current);

        // A dataset across the hand-over: its manifest and first job journalled by the old active, the rest sent to
        // the new one, which must complete it from the journal it took over.
        GridDataset across = prepare(old, ACROSS);
        produce(old, across, across.jobs().subList(0, 1));
        String acrossState = DaemonProcesses.get(http, supervisorA.port(), "/datasets/" + across.name())
                .map(HttpResponse::body).orElse("");
        assertTrue(acrossState.contains(across.name()) && !acrossState.contains("\"state\":\"DONE\""),
                "dataset " + ACROSS + " at the old active: " + acrossState);
        progress("dataset " + ACROSS + ": its manifest and 1 of " + across.jobs().size() + " jobs sent to the old"
                + " active");

        t = System.nanoTime();
        stopDaemon(supervisorB);
        supervisorB = startSupervisor(current, "b");
        awaitRole(supervisorB, "standby");
        progress("supervisor b: " + current.home().getFileName() + ", standby");
        stopDaemon(supervisorA);
        awaitStatus(supervisorB, "/ready", 200);
        progress("supervisor b: active after a's clean stop");
        supervisorA = startSupervisor(current, "a");
        awaitRole(supervisorA, "standby");
        progress("supervisor a: " + current.home().getFileName() + ", standby");
        stepSeconds.put("supervisor pair", seconds(t));
        produce(old, across, across.jobs().subList(1, across.jobs().size()));
        sent.put(across.name(), across.expected());
        progress("dataset " + ACROSS + ": its other jobs sent to the new active");

        t = System.nanoTime();
        stopDaemon(consumer1);
        consumer1 = startConsumer(current, 1);
        progress("consumer 1: " + current.home().getFileName() + ", ready");
        stopDaemon(consumer2);
        consumer2 = startConsumer(current, 2);
        progress("consumer 2: " + current.home().getFileName() + ", ready");
        stepSeconds.put("consumers, one at a time", seconds(t));

        t = System.nanoTime();
        stopDaemon(lookup);
        lookup = startLookup(current);
        stepSeconds.put("lookup service", seconds(t));
        double upgradeSeconds = seconds(upgradeStart);
        StringBuilder steps = new StringBuilder();
        stepSeconds.forEach((step, sec) -> steps.append(String.format("%s%s %.1f s", steps.isEmpty() ? "" : ", ",
                step, sec)));
        progress(String.format("upgraded in %.1f s: %s", upgradeSeconds, steps));

        upgrading.set(false);
        int lastOld = grid.get(STEP.toMinutes() * 2, TimeUnit.MINUTES);
        send(current, lastOld + 1);
        List<String> names = new ArrayList<>(sent.keySet());
        names.sort(null);
        long doneWait = System.nanoTime();
        awaitDone(supervisorB, names);
        progress(names.size() + " datasets DONE (" + (names.size() - 1) + " by the released producer, 1 by this"
                + " build's), "
                + String.format("%.1f", seconds(doneWait)) + " s after the last was sent");

        // Every dataset exactly once: its row, its counts, one file; the table holds their sum and nothing else.
        DatasetQueries queries = stack.kuduQueries();
        long expectedEvents = 0;
        for (String dataset : names) {
            GeneratedDataset expected = sent.get(dataset);
            DatasetsRow row = queries.dataset(dataset).orElseThrow(() -> new AssertionError("no DATASETS row of "
                    + dataset));
            EventCounts counts = queries.countEvents(row.dspid(), row.rgid());
            assertEquals(expected.expectedUniqueEvents(), counts.events(), "EVENTS rows of " + dataset);
            assertEquals(expected.crossFileDuplicates(), counts.duplicates(), "DUPLICATEDEVENTS rows of " + dataset);
            expectedEvents += expected.expectedUniqueEvents();
        }
        assertEquals(expectedEvents, eventRows(), "EVENTS rows of every dataset together");
        Map<String, Integer> files = consolidatedFiles();
        for (String dataset : names) {
            assertEquals(1, files.getOrDefault(dataset, 0), "consolidated files of " + dataset + ": " + files);
        }
        assertEquals(names.size(), files.size(), "consolidated files on HDFS: " + files);
        for (EmbeddedBroker broker : stack.brokers()) {
            assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "dead letters on " + broker.stompEndpoints());
        }

        // The new lookup service answers for an event of the first dataset.
        DatasetsRow first = queries.dataset(datasetName(0)).orElseThrow();
        long event = DistributionIT.oneEventNumber(stack, first.dspid());
        HttpResponse<String> answer = DaemonProcesses.get(http, lookup.port(), "/events/" + RUN + "/" + event)
                .orElseThrow(() -> new AssertionError("lookup serve did not answer"));
        assertEquals(200, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains(Long.toString(event)), answer.body());

        // The new consumers run with this build's defaults (jvm/), then the site's options, which stayed.
        List<String> defaults = optionLines(current.home().resolve("jvm/consumer.options"));
        for (Daemon consumer : List.of(consumer1, consumer2)) {
            List<String> cmdline = DistributionIT.commandLine(consumer.process());
            int at = cmdline.indexOf(defaults.get(0));
            assertTrue(at > 0, "no default of " + current.home() + "/jvm in " + cmdline);
            List<String> expectedOptions = new ArrayList<>(defaults);
            expectedOptions.addAll(SITE_CONSUMER_OPTIONS);
            assertEquals(expectedOptions, cmdline.subList(at, at + expectedOptions.size()),
                    "consumer " + consumer.name());
        }
        progress(String.format("%d datasets, %,d events, every one in Kudu once; upgrade %.1f s, whole test %.1f s",
                names.size(), expectedEvents, upgradeSeconds, seconds(start)));
    }

    /**
     * The RPM of the release installed into a private root ({@code rpm --root}, no scriptlets: the root has no shell),
     * the site's edit of /etc/eventindex/jvm/consumer.options, this build's RPM installed over it: the edited file
     * stays (the new comments-only file beside it as .rpmnew), a file the site did not edit is replaced, the defaults
     * are this build's /opt/eventindex/jvm/, and after the guide's loop for a site coming from 0.1.0 the installed
     * launcher starts the consumer with this build's defaults followed by the site's own line.
     */
    @Test
    void theReleasesRpmUpgradedKeepsTheSitesJvmOptionsAndBringsTheNewDefaults() throws Exception {
        Path fromTarball = Path.of(System.getProperty(FROM_PROPERTY)).toAbsolutePath();
        Matcher name = TARBALL_NAME.matcher(fromTarball.getFileName().toString());
        assertTrue(name.matches(), "not a tarball's name: " + fromTarball);
        Path oldRpm = fromTarball.resolveSibling("eventindex-" + name.group(1) + "-1.el9.noarch.rpm");
        Path newRpm = InstalledTree.TARBALL.resolveSibling("eventindex-" + InstalledTree.VERSION.replace('-', '~')
                + "-1.el9.noarch.rpm");
        Prerequisites.require(Files.isRegularFile(oldRpm) && Files.isRegularFile(newRpm),
                "no " + oldRpm + " or " + newRpm + ": the builds make them where rpmbuild is on the PATH (Debian:"
                        + " apt-get install rpm)");
        Path root = Files.createDirectories(temp.resolve("root"));
        List<String> rpm = List.of("rpm", "--root", root.toString(), "--define", "_dbpath /rpmdb", "--nodeps",
                "--noscripts", "--notriggers");
        long t = System.nanoTime();
        command(rpm, "-i", oldRpm.toString());
        Path siteOptions = root.resolve("etc/eventindex/jvm/consumer.options");
        appendLines(siteOptions, List.of("-Xmx3g"));
        command(rpm, "-U", newRpm.toString());
        progress(String.format("rpm -i %s, the site's edit, rpm -U %s: %.1f s", oldRpm.getFileName(),
                newRpm.getFileName(), seconds(t)));

        assertTrue(Files.readString(siteOptions).endsWith("\n-Xmx3g\n"),
                "the site's edit: " + Files.readString(siteOptions));
        assertTrue(Files.isRegularFile(siteOptions.resolveSibling("consumer.options.rpmnew")), "no .rpmnew beside "
                + siteOptions);
        Path opt = root.resolve("opt/eventindex");
        assertEquals(List.of(), optionLines(root.resolve("etc/eventindex/jvm/lookup.options")),
                "the unedited site file is the new one, comments only");
        List<String> defaults = optionLines(opt.resolve("jvm/consumer.options"));
        assertTrue(defaults.contains("-Xmx1g"), "this build's defaults: " + defaults);

        site = root.resolve("etc/eventindex");
        Process loop = guideLoop(opt);
        assertEquals(0, loop.exitValue());
        assertEquals(List.of("-Xmx3g"), optionLines(siteOptions), "the site's own line, after the guide's loop");
        Process p = new ProcessBuilder(opt.resolve("bin/eventindex").toString(), "--jvm-options", "consumer", "run")
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        List<String> options = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> !l.startsWith("#")).toList();
        assertTrue(p.waitFor(1, TimeUnit.MINUTES) && p.exitValue() == 0, "--jvm-options: " + options);
        List<String> expected = new ArrayList<>(defaults);
        expected.add("-Xmx3g");
        assertEquals(expected, options, "the installed launcher's options");
    }

    private static void command(List<String> head, String... tail) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        Process p = new ProcessBuilder(all).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), all + " did not end: " + out);
        assertEquals(0, p.exitValue(), all + ": " + out);
    }

    private void progress(String line) {
        String text = String.format("upgrade-test %6.1f s: %s", seconds(start), line);
        LOG.info(text);
        String file = System.getProperty(PROGRESS_PROPERTY, "");
        if (!file.isEmpty()) {
            try {
                Files.writeString(Path.of(file), text + "\n", StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to " + file + " (" + PROGRESS_PROPERTY + ")", e);
            }
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static String datasetName(int i) {
        return String.format("data16_13TeV.00311321.physics_Main.merge.AOD.f758_m%04d", 1600 + i);
    }

    /**
     * The site's configuration folder, made from the release's conf/ as a site did at its first install: the
     * daemons' files for the services, one per supervisor (the pair: lease in ZooKeeper, journal on HDFS) and per
     * consumer, and the site's own JVM options added to its copy of jvm/*.options.
     */
    private void writeSiteConfiguration(InstalledTree tree) throws IOException {
        site = temp.resolve("etc/eventindex");
        Path hadoopConf = SiteConfiguration.hadoopConfiguration(temp.resolve("hadoop-conf"), stack.hdfs().uri());
        SiteConfiguration.write(tree.home().resolve("conf"), site, new SiteConfiguration.Services(
                stack.brokerEndpoints(), stack.secretsDir(), stack.s3().endpoint().toString(),
                stack.options().bucket(), EmbeddedStack.S3_ACCESS_KEY, stack.s3SecretKeyFile(), stack.hdfs().uri(),
                stack.hdfsRoot(), stack.kuduMasters()), hadoopConf, temp.resolve("var/lib/eventindex"), "127.0.0.1");
        Properties supervisor = SiteConfiguration.properties(site.resolve("supervisor.properties"));
        for (String id : List.of("a", "b")) {
            Map<String, String> s = new LinkedHashMap<>();
            supervisor.stringPropertyNames().forEach(k -> s.put(k, supervisor.getProperty(k)));
            s.put(SupervisorConfig.HA_ENABLED, "true");
            s.put(SupervisorConfig.HA_STORE, "zookeeper");
            s.put(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zookeeper.connectString());
            s.put(SupervisorConfig.HA_ID, id);
            s.put(SupervisorConfig.JOURNAL_HDFS_DIR, stack.hdfs().uri() + "/eventindex/supervisor/journal");
            s.put(SupervisorConfig.HADOOP_CONF_DIR, hadoopConf.toString());
            s.put(SupervisorConfig.JOURNAL_DIR, temp.resolve("var/lib/eventindex/supervisor-" + id).toString());
            s.put(SupervisorConfig.HTTP_PORT, Integer.toString(Ports.freeForRestart()));
            DaemonProcesses.writeConfig(site.resolve("supervisor-" + id + ".properties"), s);
        }
        Properties consumer = SiteConfiguration.properties(site.resolve("consumer.properties"));
        for (int n : List.of(1, 2)) {
            Map<String, String> c = new LinkedHashMap<>();
            consumer.stringPropertyNames().forEach(k -> c.put(k, consumer.getProperty(k)));
            c.put(ConsumerConfig.ID, "consumer-" + n);
            c.put(ConsumerConfig.SPOOL_DIR, temp.resolve("var/lib/eventindex/consumer-" + n + "/spool").toString());
            c.put(ConsumerConfig.HTTP_PORT, Integer.toString(Ports.freeForRestart()));
            DaemonProcesses.writeConfig(site.resolve("consumer-" + n + ".properties"), c);
        }
        appendLines(site.resolve("jvm/consumer.options"), SITE_CONSUMER_OPTIONS);
        appendLines(site.resolve("jvm/supervisor.options"), SITE_SUPERVISOR_OPTIONS);
    }

    /**
     * The guide's step for a site coming from a release whose conf/jvm/ held the defaults: each site file keeps only
     * the lines that are not the new defaults (the released defaults are the same lines), its own. The guide's
     * command, run by bash as an operator would, with /etc/eventindex and /opt/eventindex the test's folders.
     */
    private void keepOnlyTheSitesJvmOptions(InstalledTree tree) throws IOException, InterruptedException {
        guideLoop(tree.home());
        assertEquals(SITE_CONSUMER_OPTIONS, optionLines(site.resolve("jvm/consumer.options")), "the site's options");
        assertEquals(SITE_SUPERVISOR_OPTIONS, optionLines(site.resolve("jvm/supervisor.options")));
        assertEquals(List.of(), optionLines(site.resolve("jvm/lookup.options")), "lookup: the site set nothing");
        progress("the site's jvm/*.options reduced to its own lines: " + SITE_CONSUMER_OPTIONS + ", "
                + SITE_SUPERVISOR_OPTIONS);
    }

    /** The guide's loop over {@code site}/jvm/*.options against the defaults of the installation {@code home}. */
    private Process guideLoop(Path home) throws IOException, InterruptedException {
        String command = "for f in \"$ETC\"/jvm/*.options; do grep -v '^[[:space:]]*#' \"$f\""
                + " | grep -vxF -f \"$OPT/jvm/${f##*/}\" > \"$f.site\"; mv \"$f.site\" \"$f\"; done";
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        pb.environment().put("ETC", site.toString());
        pb.environment().put("OPT", home.toString());
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(1, TimeUnit.MINUTES), "the guide's loop did not end: " + out);
        assertEquals(0, p.exitValue(), "the guide's loop: " + out);
        return p;
    }

    private static void appendLines(Path file, List<String> lines) throws IOException {
        Files.writeString(file, Files.readString(file) + String.join("\n", lines) + "\n");
    }

    private void createTables(InstalledTree tree) throws IOException, InterruptedException {
        InstalledTree.Run created = tree.run(env, log("create-tables", tree), COMMAND_MINUTES,
                "kudu-loader", "create-tables", "--masters", stack.kuduMasters(), "--prefix=", "--replicas", "1",
                "--epoch", "1");
        assertEquals(0, created.exit(), created.output());
        progress("kudu-loader create-tables of " + tree.home().getFileName());
    }

    private static String version(InstalledTree tree) {
        return tree.home().getFileName().toString().substring("eventindex-".length());
    }

    private Path log(String daemon, InstalledTree tree) throws IOException {
        return Files.createDirectories(temp.resolve("logs")).resolve(daemon + "-" + version(tree) + ".log");
    }

    /** A supervisor of the pair, once it answers /health (a standby is not ready until it is active). */
    private Daemon startSupervisor(InstalledTree tree, String id) throws IOException {
        return startDaemon(tree, "supervisor", "supervisor-" + id, SupervisorConfig.HTTP_PORT, "/health");
    }

    private Daemon startConsumer(InstalledTree tree, int n) throws IOException {
        return startDaemon(tree, "consumer", "consumer-" + n, ConsumerConfig.HTTP_PORT, "/ready");
    }

    /** {@code <command> run --config <site>/<name>.properties} of {@code tree}, once {@code path} answers 200. */
    private Daemon startDaemon(InstalledTree tree, String command, String name, String portKey, String path)
            throws IOException {
        Path config = site.resolve(name + ".properties");
        int port = Integer.parseInt(SiteConfiguration.properties(config).getProperty(portKey));
        Process p = tree.start(env, log(name, tree), command, "run", "--config", config.toString());
        processes.add(p);
        Daemon d = new Daemon(name, tree, p, port);
        awaitStatus(d, path, 200);
        return d;
    }

    private Daemon startLookup(InstalledTree tree) throws IOException {
        int port = Ports.free();
        Process p = tree.start(env, log("lookup", tree), "lookup", "serve", "--masters", stack.kuduMasters(),
                "--prefix=", "--bind", "127.0.0.1", "--port", Integer.toString(port));
        processes.add(p);
        Daemon d = new Daemon("lookup", tree, p, port);
        awaitStatus(d, "/ready", 200);
        progress("lookup serve: " + tree.home().getFileName() + ", ready");
        return d;
    }

    /** SIGTERM, as systemctl stop sends it: the daemon stops cleanly (0 or 143, as the units count success). */
    private void stopDaemon(Daemon d) throws InterruptedException {
        d.process().destroy();
        assertTrue(d.process().waitFor(STEP.toSeconds(), TimeUnit.SECONDS), d.name() + " did not stop");
        assertTrue(List.of(0, 143).contains(d.process().exitValue()), d.name() + " exit " + d.process().exitValue());
        processes.remove(d.process());
        progress(d.name() + " (" + d.tree().home().getFileName() + ") stopped");
    }

    private void awaitStatus(Daemon d, String path, int status) {
        Await.until(d.name() + " " + path + " answering " + status, STEP, () -> {
            assertTrue(d.process().isAlive(), d.name() + " exited; its log: " + logTail(d));
            return DaemonProcesses.get(http, d.port(), path).map(r -> r.statusCode() == status).orElse(false);
        });
    }

    /**
     * Until every {@code eventindex_broker_subscribed} sample of {@code d} for {@code broker} is 1 ({@code subscribed})
     * or 0: as an operator reads /metrics before the next broker.
     */
    private void awaitSubscribed(Daemon d, EmbeddedBroker broker, boolean subscribed) {
        String label = "broker=\"" + broker.stompEndpoints() + "\"";
        Await.until(d.name() + (subscribed ? " subscribed to " : " not subscribed to ") + broker.stompEndpoints(), STEP,
                () -> {
                    assertTrue(d.process().isAlive(), d.name() + " exited; its log: " + logTail(d));
                    String metrics = DaemonProcesses.get(http, d.port(), "/metrics").map(HttpResponse::body).orElse("");
                    long samples = metrics.lines().filter(l -> l.startsWith("eventindex_broker_subscribed{")
                            && l.contains(label)).count();
                    double sum = MetricsText.value(metrics, "eventindex_broker_subscribed", label);
                    return samples > 0 && sum == (subscribed ? samples : 0);
                });
    }

    private void awaitRole(Daemon d, String role) {
        Await.until(d.name() + " " + role, STEP, () -> {
            assertTrue(d.process().isAlive(), d.name() + " exited; its log: " + logTail(d));
            return DaemonProcesses.get(http, d.port(), "/console/role").map(HttpResponse::body).orElse("")
                    .contains("\"" + role + "\"");
        });
    }

    private String logTail(Daemon d) {
        try {
            String all = InstalledTree.read(log(d.name(), d.tree()));
            return all.substring(Math.max(0, all.length() - 4000));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /**
     * One grid dataset: its files made by {@code generate} of {@code tree}, its manifest registered by the operator's
     * command, each reported job sent by that tree's producer jar. The expected figures come from the same generator.
     */
    private void send(InstalledTree tree, int i) throws IOException, InterruptedException {
        GridDataset dataset = prepare(tree, i);
        produce(tree, dataset, dataset.jobs());
        sent.put(dataset.name(), dataset.expected());
        progress("dataset " + i + " sent by the " + version(tree) + " producer");
    }

    /** A grid dataset: its files and manifest ({@code generate}), the expected figures, its grid jobs' log. */
    private record GridDataset(String name, Path dir, Path log, GeneratedDataset expected) {
        List<GeneratedJob> jobs() {
            return expected.jobs(GeneratedJob.Outcome.REPORTED);
        }
    }

    /** The dataset's files made by {@code generate} of {@code tree}, its manifest registered by an operator command. */
    private GridDataset prepare(InstalledTree tree, int i) throws IOException, InterruptedException {
        String dataset = datasetName(i);
        Path dir = temp.resolve("grid/" + i);
        Path log = temp.resolve("logs/grid-" + i + ".log");
        InstalledTree.Run generated = tree.run(env, log, COMMAND_MINUTES, "generate", "--dataset", dataset, "--out",
                dir.toString(), "--files", "4", "--events-per-file", "400", "--files-per-job", "2",
                "--duplicated-jobs", "1", "--crashed-jobs", "0", "--cross-file-duplicates", "10", "--seed",
                Integer.toString(100 + i));
        assertEquals(0, generated.exit(), generated.output());
        GeneratedDataset expected = new DatasetGenerator(new GeneratorSpec(dataset, 4, 400, 2, 1, 0, 10, false,
                100L + i)).generate(temp.resolve("expected/" + i));
        Path password = BrokerLogins.passwordFile(stack.secretsDir(), BrokerLogins.OPERATOR);
        InstalledTree.Run registered = tree.run(env, log, COMMAND_MINUTES, "supervisor", "register-manifest",
                "--file", dir.resolve(dataset + ".manifest.json").toString(), "--brokers", stack.brokerEndpoints(),
                "--user", BrokerLogins.OPERATOR, "--password-file", password.toString(), "--timeout",
                Long.toString(STEP.toSeconds()));
        assertEquals(0, registered.exit(), registered.output());
        return new GridDataset(dataset, dir, log, expected);
    }

    /** Each of {@code jobs} of the dataset sent by {@code tree}'s producer jar, as grid jobs run it. */
    private void produce(InstalledTree tree, GridDataset dataset, List<GeneratedJob> jobs) throws IOException,
            InterruptedException {
        for (GeneratedJob job : jobs) {
            InstalledTree.Run produced = tree.run(env, dataset.log(), COMMAND_MINUTES, "producer",
                    dataset.dir().resolve(job.spbFile().getFileName()).toString(), "--brokers",
                    stack.brokerEndpoints(), "--s3-endpoint", stack.s3().endpoint().toString(), "--bucket",
                    stack.options().bucket(), "--user", BrokerLogins.PRODUCER, "--password-file",
                    BrokerLogins.passwordFile(stack.secretsDir(), BrokerLogins.PRODUCER).toString(),
                    "--access-key", EmbeddedStack.S3_ACCESS_KEY,
                    "--secret-key-file", stack.s3SecretKeyFile().toString());
            assertEquals(0, produced.exit(), produced.output());
        }
    }

    private void awaitDone(Daemon supervisor, List<String> datasets) {
        for (String dataset : datasets) {
            Await.until(dataset + " DONE at " + supervisor.name(), Duration.ofMinutes(5), () -> {
                assertTrue(supervisor.process().isAlive(), supervisor.name() + " exited: " + logTail(supervisor));
                return DaemonProcesses.get(http, supervisor.port(), "/datasets/" + dataset)
                        .map(HttpResponse::body).orElse("").contains("\"state\":\"DONE\"");
            });
        }
    }

    private long eventRows() throws IOException {
        try (KuduClient kudu = new KuduClient.KuduClientBuilder(stack.kuduMasters()).build()) {
            KuduScanner scanner = kudu.newScannerBuilder(kudu.openTable(stack.tablesConfig().eventsTable()))
                    .setProjectedColumnNames(List.of()).build();
            long rows = 0;
            while (scanner.hasMoreRows()) {
                rows += scanner.nextRows().getNumRows();
            }
            return rows;
        }
    }

    /** The consolidated files under the HDFS root by dataset ({@code <container>/<dataset>.parquet}). */
    private Map<String, Integer> consolidatedFiles() throws IOException {
        Map<String, Integer> files = new LinkedHashMap<>();
        RemoteIterator<LocatedFileStatus> it = stack.hdfs().fs().listFiles(
                new org.apache.hadoop.fs.Path(stack.hdfsRoot()), true);
        while (it.hasNext()) {
            FileStatus f = it.next();
            String file = f.getPath().getName();
            if (file.endsWith(".parquet")) {
                files.merge(file.substring(0, file.length() - ".parquet".length()), 1, Integer::sum);
            }
        }
        return files;
    }

    private static List<String> optionLines(Path file) throws IOException {
        return Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
    }
}
