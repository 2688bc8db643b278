package org.eventindex.bench.lookup;

import org.apache.kudu.Schema;
import org.apache.kudu.client.AsyncKuduScanner;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.ReplicaSelection;
import org.apache.kudu.client.SessionConfiguration;
import org.apache.kudu.client.Upsert;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.lookup.EventKey;
import org.eventindex.lookup.EventLookup;
import org.eventindex.lookup.LookupFilter;
import org.eventindex.lookup.LookupResult;
import org.eventindex.lookup.LookupServer;
import org.eventindex.lookup.ServerLimits;
import org.eventindex.message.Json;
import org.eventindex.names.PoolToken;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lookup benchmark (not a test), after seed 001's: random (run, event) lookups on a loaded EVENTS table, at 1 and 8
 * client threads, through {@link EventLookup} (DATASETS scan + point scan per dataset of the run) and, as the
 * baseline in the same run, a raw Kudu client point scan with the (dspid, eventnumber, rgid) key already known.
 * Rows are written directly with the Kudu client (key, run, GUIDs and tokens; trigger words left NULL) into
 * {@code --datasets} LOADED datasets of one run each, spread over {@code --epochs} epochs, 64 hash buckets as in
 * production. Besides the in-process paths it times the lookup service itself ({@link LookupServer} on a free port,
 * {@code GET /events/{run}/{event}} from 1 and 8 HTTP client threads), batches of 500 and 1,000 events through
 * {@code POST /lookup}, and, with {@code --load-events N}, the service and the raw scan again while a consumer loads N
 * more events of one more dataset into the same Kudu: {@link ConsumerLoad}, the kudu-loader's {@code DatasetLoader}
 * with the consumer's settings from a consolidated file, at its own rate or capped ({@code --load-rates}), the rows/s
 * it reached printed beside each pass's p99. Run through {@code bin/bench-lookup}; options: --events N (default
 * 2000000), --datasets N (default 20), --epochs N (default 2), --lookups N (default 8000), --load-events N (default 0:
 * none), --load-rates ROWS/S[:EVENTS][,...] (default 0: the loader's own rate), --tserver-flag --FLAG=VALUE
 * (repeatable), --work DIR.
 */
public final class LookupBench {
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("bench_", 64, 1);
    private static final int FIRST_RUN = 400_000;
    /** How many slices the timed lookups are cut into for interleaving the paths. */
    private static final int SLICES = 8;
    /** The baseline's projection: the event's own file and token. */
    private static final List<String> RAW_COLUMNS = List.of(KuduSchemas.DB, KuduSchemas.TK);
    /** What a lookup reads: run, own file and token, three provenance files and tokens. */
    private static final List<String> LOOKUP_COLUMNS = EventLookup.EVENT_COLUMNS;

    private record Target(int run, long event, int dspid, int rgid) {
    }

    /** The command line of {@code bin/bench-lookup}. */
    @Command(name = "bin/bench-lookup", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Lookup benchmark (not a test); results go in docs/performance.md.")
    static final class Options implements Callable<Integer> {
        @Option(names = "--events", paramLabel = "N", description = "events loaded (default 2000000)")
        long events = 2_000_000;
        @Option(names = "--datasets", paramLabel = "N", description = "datasets they are spread over (default 20)")
        int datasets = 20;
        @Option(names = "--epochs", paramLabel = "N", description = "epochs the datasets are spread over (default 2)")
        int epochs = 2;
        @Option(names = "--lookups", paramLabel = "N", description = "timed lookups (default 8000)")
        int lookups = 8000;
        @Option(names = "--load-events", paramLabel = "N", description = "events of one more dataset loaded by the"
                + " consumer's loader while the service and the raw scan are timed again (the seed's dataset: 21103653;"
                + " default 0: none)")
        long loadEvents;
        @Option(names = "--load-rates", paramLabel = "ROWS/S[:EVENTS]", split = ",", description = "with"
                + " --load-events: one load per value, one after the other, each of a new dataset by the consumer's"
                + " loader, capped at that many rows/s (0: the loader's own rate), of EVENTS events (default"
                + " --load-events); default 0")
        List<String> loadRates = List.of("0");
        @Option(names = "--tserver-flag", paramLabel = "--FLAG=VALUE", description = "an extra tablet server flag"
                + " (repeatable), to compare a site's settings against the defaults")
        List<String> tserverFlags = new ArrayList<>();
        @Option(names = "--work", paramLabel = "DIR", description = "working folder (default: a temporary one)")
        Path work;

        @Override
        public Integer call() throws Exception {
            if (epochs < 1 || datasets < epochs) {
                throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--epochs must be"
                        + " within 1..--datasets (" + datasets + "): " + epochs);
            }
            List<LoadPlan> plans = new ArrayList<>();
            for (String value : loadRates) {
                String[] parts = value.split(":", 2);
                try {
                    long rate = Long.parseLong(parts[0].strip());
                    long n = parts.length > 1 ? Long.parseLong(parts[1].strip()) : loadEvents;
                    if (rate < 0 || n < 0) {
                        throw new NumberFormatException("negative");
                    }
                    plans.add(new LoadPlan(rate, n));
                } catch (NumberFormatException e) {
                    throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--load-rates"
                            + " takes ROWS/S (0: the loader's own rate) or ROWS/S:EVENTS, both 0 or more: " + value);
                }
            }
            bench(new Sizes(events, datasets, epochs, lookups, plans,
                    List.copyOf(tserverFlags)), work);
            return 0;
        }
    }

    public static void main(String[] args) {
        System.exit(CommandLines.execute(new Options(), args, System.out, System.err));
    }

    /** What a run loads and times. */
    private record Sizes(long events, int datasets, int epochs, int lookups, List<LoadPlan> loads,
                         List<String> tserverFlags) {
    }

    /** One load timed against the lookups: {@code events} events capped at {@code rate} rows/s (0: uncapped). */
    private record LoadPlan(long rate, long events) {
    }

    private static void bench(Sizes sizes, Path work) throws Exception {
        int datasets = sizes.datasets();
        int lookups = sizes.lookups();
        int epochs = sizes.epochs();
        Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("bench-lookup");
        try (EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1, sizes.tserverFlags())) {
            KuduClient client = kudu.client();
            KuduTables tables = new KuduTables(client, CONFIG);
            long perDataset = sizes.events() / datasets;
            tables.createOrVerify(0);
            for (int e = 1; e < epochs; e++) {
                tables.ensureEpoch(e);
            }
            long t0 = System.nanoTime();
            load(client, datasets, epochs, perDataset, progress("loading", perDataset * datasets));
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "loaded %,d events in %d datasets (%d epochs, 64 buckets) in %.1f s"
                    + " (%,.0f rows/s)%n", perDataset * datasets, datasets, epochs, loadSeconds,
                    perDataset * datasets / loadSeconds);
            if (!sizes.tserverFlags().isEmpty()) {
                System.out.println("tablet server flags added: " + String.join(" ", sizes.tserverFlags()));
            }
            List<ConsumerLoad> loads = consumerLoads(kudu.masterAddresses(), dir, sizes);

            Random r = new Random(42);
            List<Target> targets = new ArrayList<>(lookups);
            for (int i = 0; i < lookups; i++) {
                int ds = r.nextInt(datasets);
                targets.add(new Target(FIRST_RUN + ds, eventNumber(ds, (long) (r.nextDouble() * perDataset)),
                        ds + 1, ds % epochs));
            }
            Duration cacheTtl = EventLookup.DEFAULT_DATASET_CACHE_TTL;
            settle(kudu);
            try (EventLookup one = new EventLookup(client, CONFIG, 1, false);
                 EventLookup eight = new EventLookup(client, CONFIG, 8, false);
                 EventLookup oneCached = new EventLookup(client, CONFIG, 1, false, cacheTtl);
                 EventLookup eightCached = new EventLookup(client, CONFIG, 8, false, cacheTtl)) {
                KuduTable events1 = client.openTable(CONFIG.eventsTable());
                // warm-up: connections, tablet locations, block cache
                run(targets.subList(0, Math.min(2000, lookups)), 8, t -> rawLookup(client, events1, RAW_COLUMNS, t));
                run(targets.subList(0, Math.min(2000, lookups)), 8, t -> lookupOne(eight, t));
                System.out.println("| client threads | path | p50 ms | p99 ms | lookups/s | ratio to raw"
                        + " | client CPU µs/lookup | tablet server CPU µs/lookup |");
                System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|");
                for (int threads : new int[]{1, 8}) {
                    EventLookup service = threads == 1 ? one : eight;
                    EventLookup cached = threads == 1 ? oneCached : eightCached;
                    int n = threads;
                    List<Variant> paths = List.of(
                            new Variant("raw Kudu point scan (key known)",
                                    t -> rawLookup(client, events1, RAW_COLUMNS, t)),
                            new Variant("raw Kudu point scan, the lookup's " + LOOKUP_COLUMNS.size() + " columns",
                                    t -> rawLookup(client, events1, LOOKUP_COLUMNS, t)),
                            new Variant("EventLookup (DATASETS + point scan)", t -> lookupOne(service, t)),
                            new Variant("EventLookup, DATASETS cached " + cacheTtl.toMillis() + " ms",
                                    t -> lookupOne(cached, t)));
                    List<Result> results = interleaved(targets, n, paths, kudu);
                    for (int i = 0; i < paths.size(); i++) {
                        print(threads, paths.get(i).name(), results.get(i), results.get(0));
                    }
                }
                long b0 = System.nanoTime();
                List<EventKey> keys = targets.stream().map(t -> new EventKey(t.run(), t.event())).toList();
                long found = eight.explained(keys, LookupFilter.all()).stream().filter(LookupResult::found).count();
                double s = (System.nanoTime() - b0) / 1e9;
                if (found != keys.size()) {
                    throw new IllegalStateException("batch found " + found + " of " + keys.size());
                }
                System.out.printf(Locale.ROOT, "one batch of %,d lookups, 8 pool threads: %.2f s, %,.0f lookups/s%n",
                        keys.size(), s, keys.size() / s);
                explainedMisses(eight, datasets, perDataset);
                try (LookupServer http = LookupServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        0), eightCached::explained, BENCH_LIMITS)) {
                    ServiceClient service = new ServiceClient(http.port());
                    LeanClient lean = new LeanClient(http.port());
                    run(targets.subList(0, Math.min(2000, lookups)), 8, service::found);
                    run(targets.subList(0, Math.min(2000, lookups)), 8, lean::found);
                    System.out.println("Through the lookup service (" + cacheTtl.toMillis() + " ms DATASETS cache),"
                            + " GET /events/{run}/{event} over HTTP on the loopback:");
                    System.out.println("| client threads | path | p50 ms | p99 ms | lookups/s | ratio to raw"
                            + " | client CPU µs/lookup | tablet server CPU µs/lookup |");
                    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|");
                    for (int threads : new int[]{1, 8}) {
                        List<Variant> paths = List.of(new Variant("raw Kudu point scan (key known)",
                                        t -> rawLookup(client, events1, RAW_COLUMNS, t)),
                                new Variant("lookup service, GET /events (kept-alive socket)", lean::found),
                                new Variant("lookup service, GET /events (JDK HttpClient)", service::found));
                        List<Result> results = interleaved(targets, threads, paths, kudu);
                        for (int i = 0; i < paths.size(); i++) {
                            print(threads, paths.get(i).name(), results.get(i), results.get(0));
                        }
                    }
                    batches(service, targets);
                    for (ConsumerLoad load : loads) {
                        underLoad(client, kudu, lean, events1, targets, load);
                    }
                    lean.close();
                }
            }
        }
    }

    /** The service's limits for the benchmark: one anonymous client may use every thread and batch at will. */
    private static final ServerLimits BENCH_LIMITS = new ServerLimits(16, ServerLimits.DEFAULT_MAX_BATCH, 18, 16,
            Integer.MAX_VALUE);

    /** {@code GET /events/...} and {@code POST /lookup} on a lookup service, with one HTTP client. */
    private static final class ServiceClient {
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        private final String base;

        ServiceClient(int port) {
            this.base = "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port;
        }

        boolean found(Target t) throws Exception {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(base + "/events/" + t.run() + "/"
                    + t.event())).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200 && r.statusCode() != 404) {
                throw new IllegalStateException("GET /events answered " + r.statusCode() + ": "
                        + new String(r.body(), StandardCharsets.UTF_8));
            }
            return r.statusCode() == 200;
        }

        /** The events of one {@code POST /lookup} found, from its answer. */
        long batch(List<Target> keys) throws Exception {
            StringBuilder body = new StringBuilder(keys.size() * 24);
            keys.forEach(t -> body.append(t.run()).append(' ').append(t.event()).append('\n'));
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(base + "/lookup"))
                    .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("POST /lookup answered " + r.statusCode() + ": "
                        + new String(r.body(), StandardCharsets.UTF_8));
            }
            long found = 0;
            for (com.fasterxml.jackson.databind.JsonNode result : Json.mapper().readTree(r.body())
                    .path("results")) {
                found += "FOUND".equals(result.path("status").asText()) ? 1 : 0;
            }
            return found;
        }
    }

    /**
     * {@code GET /events/...} on one kept-alive HTTP/1.1 connection per thread, written and read by hand: what the
     * service costs without the JDK client's own (a physicist's client is another process, curl or Python).
     */
    private static final class LeanClient implements AutoCloseable {
        private final int port;
        private final List<java.net.Socket> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final ThreadLocal<java.net.Socket> connection = new ThreadLocal<>();

        LeanClient(int port) {
            this.port = port;
        }

        boolean found(Target t) throws Exception {
            byte[] request = ("GET /events/" + t.run() + "/" + t.event() + " HTTP/1.1\r\nHost: bench\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            java.net.Socket s = connection.get();
            if (s != null) {
                try {
                    return exchange(s, request);
                } catch (java.io.IOException closed) {
                    // the server ended the kept-alive connection (its idle limit): one new connection, as any client
                    s.close();
                }
            }
            s = new java.net.Socket(InetAddress.getLoopbackAddress(), port);
            s.setTcpNoDelay(true);
            connection.set(s);
            opened.add(s);
            return exchange(s, request);
        }

        private static boolean exchange(java.net.Socket s, byte[] request) throws java.io.IOException {
            s.getOutputStream().write(request);
            java.io.InputStream in = s.getInputStream();
            String status = line(in);
            int length = -1;
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(h.substring(15).strip());
                }
            }
            if (length < 0 || in.readNBytes(length).length != length) {
                throw new IllegalStateException("no body after " + status);
            }
            int code = Integer.parseInt(status.split(" ")[1]);
            if (code != 200 && code != 404) {
                throw new IllegalStateException("GET /events answered " + status);
            }
            return code == 200;
        }

        private static String line(java.io.InputStream in) throws java.io.IOException {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new java.io.EOFException("connection closed by the service");
                }
                if (c != '\r') {
                    b.append((char) c);
                }
            }
            return b.toString();
        }

        @Override
        public void close() throws java.io.IOException {
            for (java.net.Socket s : opened) {
                s.close();
            }
        }
    }

    /**
     * Batches of 500 and 1,000 events through {@code POST /lookup}, as the workload system picks events: time per
     * batch (p50 and the slowest of {@link #BATCHES} each), one client, then 8 clients at once.
     */
    private static void batches(ServiceClient service, List<Target> targets) throws Exception {
        System.out.println("| batch | clients | batches | p50 s/batch | max s/batch | events/s |");
        System.out.println("|---:|---:|---:|---:|---:|---:|");
        for (int size : new int[]{500, 1000}) {
            for (int clients : new int[]{1, 8}) {
                List<List<Target>> work = new ArrayList<>();
                for (int b = 0; b < BATCHES; b++) {
                    int from = (b * size) % Math.max(1, targets.size() - size);
                    work.add(targets.subList(from, Math.min(targets.size(), from + size)));
                }
                long[] nanos = new long[work.size()];
                AtomicInteger next = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(clients);
                long t0 = System.nanoTime();
                try {
                    List<Future<?>> fs = new ArrayList<>();
                    for (int c = 0; c < clients; c++) {
                        fs.add(pool.submit(() -> {
                            for (int k = next.getAndIncrement(); k < work.size(); k = next.getAndIncrement()) {
                                long s0 = System.nanoTime();
                                long found = service.batch(work.get(k));
                                nanos[k] = System.nanoTime() - s0;
                                // a key asked twice in a batch is answered once (PickingBatch)
                                long distinct = work.get(k).stream().map(t -> t.run() + "/" + t.event()).distinct()
                                        .count();
                                if (found != distinct) {
                                    throw new IllegalStateException("batch " + k + " found " + found + " of "
                                            + distinct + " distinct events");
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : fs) {
                        f.get();
                    }
                } finally {
                    pool.shutdown();
                }
                double wall = (System.nanoTime() - t0) / 1e9;
                long events = work.stream().mapToLong(List::size).sum();
                Arrays.sort(nanos);
                System.out.printf(Locale.ROOT, "| %,d | %d | %d | %.3f | %.3f | %,.0f |%n", size, clients,
                        nanos.length, nanos[nanos.length / 2] / 1e9, nanos[nanos.length - 1] / 1e9, events / wall);
            }
        }
    }

    /** Batches timed per size and client count. */
    private static final int BATCHES = 24;

    /**
     * The loads timed against the lookups: one per {@code --load-rates} value, each a new dataset of
     * {@code --load-events} events (run and dspid after the loaded ones, epoch as theirs), its consolidated file written
     * now (while the tablet server settles). None without {@code --load-events}.
     */
    private static List<ConsumerLoad> consumerLoads(String masters, Path dir, Sizes sizes)
            throws java.io.IOException {
        List<ConsumerLoad> loads = new ArrayList<>();
        for (int i = 0; i < sizes.loads().size(); i++) {
            LoadPlan plan = sizes.loads().get(i);
            if (plan.events() == 0) {
                continue;
            }
            int d = sizes.datasets() + i;
            org.eventindex.names.DatasetName name = org.eventindex.names.DatasetName.parse(
                    String.format(Locale.ROOT, "data18_13TeV.%08d.physics_Main.merge.AOD.f1000_m2000", FIRST_RUN + d));
            long w0 = System.nanoTime();
            int dataset = d;
            Path file = ConsumerLoad.writeFile(dir.resolve("consolidated")
                    .resolve(name + ".parquet"), name, plan.events(), n -> eventNumber(dataset, n));
            System.out.printf(Locale.ROOT, "consolidated file of %s (%,d events) written in %.1f s%n", name,
                    plan.events(), (System.nanoTime() - w0) / 1e9);
            loads.add(new ConsumerLoad(masters, CONFIG, new org.eventindex.kudu.LoadRequest(name, d + 1,
                    d % sizes.epochs(), "bench-lookup-" + d, org.eventindex.kudu.DatasetSource.local(file)), file,
                    dir.resolve("consolidated").resolve(name + ".load.log"), plan.rate()));
        }
        return loads;
    }

    /**
     * The service and the raw scan at 8 threads again while {@code load} runs: the consumer's loader writing one more
     * dataset into the same Kudu (the tablet server is the shared resource, as when a consumer loads). The tablet
     * server is first let settle from what ran before; the timing repeats until the load is LOADED, so every lookup
     * timed competes with it. Prints, per pass, the rows loaded during it and their rate, the 1-minute load average,
     * the cores the tablet server, the loading JVM and this one (service and clients) used, then the p99 over all passes and
     * the load's own rate.
     */
    private static void underLoad(KuduClient client, EmbeddedKudu kudu, LeanClient service, KuduTable events,
                                  List<Target> targets, ConsumerLoad load) throws Exception {
        settle(kudu);
        ExecutorService writer = Executors.newSingleThreadExecutor();
        long l0 = System.nanoTime();
        Future<Long> loading = writer.submit(load::run);
        try {
            System.out.printf(Locale.ROOT, "While the consumer's loader (its own JVM of " + ConsumerLoad.HEAP
                    + " heap, %d sessions, %s) loads %s (8 client"
                    + " threads; every pass of the %,d lookups while it runs):%n", ConsumerLoad.sessions(),
                    load.cap() == 0 ? "its own rate" : String.format(Locale.ROOT, "capped at %,d rows/s", load.cap()),
                    load.dataset(), targets.size());
            System.out.println("| pass | rows loaded during it | load rows/s | load average | tablet server cores"
                    + " | loader JVM cores | bench JVM cores | raw p50 ms | raw p99 ms | service p50 ms"
                    + " | service p99 ms | service lookups/s |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            int pass = 0;
            List<Variant> paths = List.of(new Variant("raw", t -> rawLookup(client, events, RAW_COLUMNS, t)),
                    new Variant("service", service::found));
            List<long[]> raw = new ArrayList<>();
            List<long[]> served = new ArrayList<>();
            while (!loading.isDone()) {
                long w0 = load.written();
                long s0 = kudu.tabletServerCpuMillis();
                long c0 = processCpuNanos();
                long lc0 = load.cpuMillis();
                long p0 = System.nanoTime();
                List<Result> results = interleaved(targets, 8, paths, kudu);
                double seconds = (System.nanoTime() - p0) / 1e9;
                double serverCores = (kudu.tabletServerCpuMillis() - s0) / 1e3 / seconds;
                double jvmCores = (processCpuNanos() - c0) / 1e9 / seconds;
                // the loading JVM's CPU is only known while it runs; a pass in which it ended shows what it used
                double loaderCores = Math.max(0, load.cpuMillis() - lc0) / 1e3 / seconds;
                raw.add(results.get(0).nanos());
                served.add(results.get(1).nanos());
                long rows = load.written() - w0;
                System.out.printf(Locale.ROOT, "| %d | %,d | %,.0f | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f"
                        + " | %.2f | %,.0f |%n", ++pass, rows, rows / seconds, loadAverage(), serverCores, loaderCores,
                        jvmCores,
                        results.get(0).p50(), results.get(0).p99(),
                        results.get(1).p50(), results.get(1).p99(), results.get(1).perSecond());
            }
            long loaded = loading.get();
            double seconds = (System.nanoTime() - l0) / 1e9;
            System.out.printf(Locale.ROOT, "under load, all %d passes: raw p99 %.2f ms, service p99 %.2f ms; the load:"
                    + " %,d events LOADED in %.1f s = %,.0f rows/s (%s)%n", pass, p99(raw), p99(served),
                    loaded, seconds, loaded / seconds,
                    load.cap() == 0 ? "own rate" : "cap " + load.cap());
        } finally {
            writer.shutdownNow();
        }
    }

    /** The 99th percentile of all latencies in {@code passes}, ms. */
    private static double p99(List<long[]> passes) {
        long[] all = passes.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return all.length == 0 ? Double.NaN : all[(int) (all.length * 0.99)] / 1e6;
    }

    /** The 1-minute load average of the machine ({@code /proc/loadavg}), or "?" where there is none. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private interface Probe {
        boolean lookup(Target t) throws Exception;
    }

    private record Variant(String name, Probe probe) {
    }

    /** @param nanos every latency of the path, sorted */
    private record Result(double p50, double p99, double perSecond, double clientCpuMicros,
                          double serverCpuMicros, long[] nanos) {
    }

    /**
     * Times every path on the same targets, interleaved: the targets are cut into {@link #SLICES} slices and each
     * slice is run by every path in turn (the order rotating from slice to slice), so that drift in the machine (the
     * tablet server's background work, other processes) is shared by all paths instead of hitting the one that
     * happens to run last. Latency percentiles and rates are over all slices of a path.
     */
    private static List<Result> interleaved(List<Target> targets, int threads, List<Variant> paths, EmbeddedKudu kudu)
            throws Exception {
        int k = paths.size();
        long[][] nanos = new long[k][targets.size()];
        long[] wall = new long[k];
        long[] clientCpu = new long[k];
        long[] serverCpu = new long[k];
        int per = (targets.size() + SLICES - 1) / SLICES;
        for (int slice = 0; slice < SLICES; slice++) {
            int from = slice * per;
            int to = Math.min(targets.size(), from + per);
            if (from >= to) {
                break;
            }
            for (int j = 0; j < k; j++) {
                int p = (j + slice) % k;
                long c0 = processCpuNanos();
                long s0 = kudu.tabletServerCpuMillis();
                long t0 = System.nanoTime();
                long[] sliceNanos = time(targets.subList(from, to), threads, paths.get(p).probe());
                wall[p] += System.nanoTime() - t0;
                clientCpu[p] += processCpuNanos() - c0;
                serverCpu[p] += (kudu.tabletServerCpuMillis() - s0) * 1_000_000L;
                System.arraycopy(sliceNanos, 0, nanos[p], from, sliceNanos.length);
            }
        }
        List<Result> out = new ArrayList<>(k);
        for (int p = 0; p < k; p++) {
            long[] all = nanos[p];
            Arrays.sort(all);
            int n = all.length;
            out.add(new Result(all[n / 2] / 1e6, all[(int) (n * 0.99)] / 1e6, n / (wall[p] / 1e9),
                    clientCpu[p] / 1e3 / n, serverCpu[p] / 1e3 / n, all));
        }
        return out;
    }

    /**
     * Waits until the tablet server is quiet after the load (its flushes and compactions would otherwise compete for
     * the same cores with the lookups being timed): until it used under 5% of a core in two 2-second windows in a
     * row, at most 15 minutes. Prints what it waited for.
     */
    static void settle(EmbeddedKudu kudu) {
        long t0 = System.nanoTime();
        long deadline = t0 + Duration.ofMinutes(15).toNanos();
        int quiet = 0;
        while (quiet < 2 && System.nanoTime() < deadline) {
            long before = kudu.tabletServerCpuMillis();
            long w0 = System.nanoTime();
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofSeconds(2).toNanos());
            double share = (kudu.tabletServerCpuMillis() - before) / ((System.nanoTime() - w0) / 1e6);
            quiet = share < 0.05 ? quiet + 1 : 0;
            System.out.printf(Locale.ROOT, "settling: tablet server busy %.0f%% of a core (%d s after the load)%n",
                    share * 100, (System.nanoTime() - t0) / 1_000_000_000L);
        }
        System.out.printf(Locale.ROOT, "tablet server %s after %d s%n", quiet >= 2 ? "quiet" : "still busy",
                (System.nanoTime() - t0) / 1_000_000_000L);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Per-lookup latencies of {@code targets} on {@code threads} threads, in the order of {@code targets}. */
    private static long[] time(List<Target> targets, int threads, Probe probe) throws Exception {
        long[] nanos = new long[targets.size()];
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                fs.add(pool.submit(() -> {
                    for (int k = next.getAndIncrement(); k < targets.size(); k = next.getAndIncrement()) {
                        long s = System.nanoTime();
                        if (!probe.lookup(targets.get(k))) {
                            throw new IllegalStateException("not found: " + targets.get(k));
                        }
                        nanos[k] = System.nanoTime() - s;
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return nanos;
    }

    /** Warm-up run (timings discarded). */
    private static void run(List<Target> targets, int threads, Probe probe) throws Exception {
        time(targets, threads, probe);
    }

    /**
     * The cost of misses, which only they pay: a batch of 1,000 events above every dataset's range, spread over the
     * runs (explained together), and 200 such misses one by one (as {@code GET /events} explains them).
     */
    private static void explainedMisses(EventLookup lookup, int datasets, long perDataset) {
        Random r = new Random(7);
        List<EventKey> misses = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int ds = r.nextInt(datasets);
            misses.add(new EventKey(FIRST_RUN + ds, eventNumber(ds, perDataset + 1 + r.nextInt(1_000_000))));
        }
        long b0 = System.nanoTime();
        List<LookupResult> batch = lookup.explained(misses, LookupFilter.all());
        double s = (System.nanoTime() - b0) / 1e9;
        long explained = batch.stream().filter(x -> x.explanation() != null).count();
        if (explained != misses.size()) {
            throw new IllegalStateException("explained " + explained + " of " + misses.size() + " misses");
        }
        System.out.printf(Locale.ROOT, "one batch of %,d misses explained, 8 pool threads: %.2f s%n", misses.size(),
                s);
        long[] nanos = new long[200];
        for (int i = 0; i < nanos.length; i++) {
            long t0 = System.nanoTime();
            LookupResult one = lookup.explained(List.of(misses.get(i)), LookupFilter.all()).get(0);
            nanos[i] = System.nanoTime() - t0;
            if (one.explanation() == null) {
                throw new IllegalStateException("miss " + misses.get(i).text() + " not explained");
            }
        }
        java.util.Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "%d single misses explained one by one: p50 %.2f ms, p99 %.2f ms%n",
                nanos.length, nanos[nanos.length / 2] / 1e6, nanos[nanos.length * 99 / 100] / 1e6);
    }

    private static void print(int threads, String path, Result r, Result raw) {
        System.out.printf(Locale.ROOT, "| %d | %s | %.2f | %.2f | %,.0f | %.2f | %.0f | %.0f |%n", threads, path,
                r.p50(), r.p99(), r.perSecond(), r.perSecond() / raw.perSecond(), r.clientCpuMicros(),
                r.serverCpuMicros());
    }

    private static boolean lookupOne(EventLookup lookup, Target t) {
        // what lookup serve does: a miss would be explained, a hit is returned as it is
        LookupResult r = lookup.explained(List.of(new EventKey(t.run(), t.event())), LookupFilter.all()).get(0);
        if (r.failed()) {
            throw new IllegalStateException(r.error());
        }
        return r.found();
    }

    private static boolean rawLookup(KuduClient client, KuduTable table, List<String> columns, Target t)
            throws Exception {
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(columns)
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .replicaSelection(ReplicaSelection.LEADER_ONLY)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, t.dspid()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, t.event()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, t.rgid()))
                .build();
        try {
            int rows = 0;
            while (scanner.hasMoreRows()) {
                rows += scanner.nextRows().getNumRows();
            }
            return rows == 1;
        } finally {
            scanner.close();
        }
    }

    /** Sparse, dataset-specific event numbers, as real runs have. */
    private static long eventNumber(int dataset, long i) {
        return 1_000_000_000L * (dataset + 1) + 3 * i + 1;
    }

    /** An AOD token in {@code guid} at entry {@code event}, as the loader writes it. */
    private static String token(String guid, long event) {
        return new PoolToken(guid, "POOLContainer(DataHeader)", "00000C1D-3333-4000-8000-000000000C1D", 0x202, 0x10L,
                event).format();
    }

    /** Prints a progress line about every 5% of {@code total} rows. */
    private static java.util.function.LongConsumer progress(String what, long total) {
        long step = Math.max(1, total / 20);
        long t0 = System.nanoTime();
        long[] next = {step};
        return done -> {
            if (done >= next[0] || done == total) {
                next[0] = done + step;
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf(Locale.ROOT, "%s: %,d of %,d rows (%.0f%%) in %.0f s%n", what, done, total,
                        100.0 * done / total, s);
            }
        };
    }

    private static void load(KuduClient client, int datasets, int epochs, long perDataset,
                             java.util.function.LongConsumer progress) throws Exception {
        long done = 0;
        for (int d = 0; d < datasets; d++) {
            long before = done;
            writeDataset(client, d, epochs, perDataset, n -> progress.accept(before + n));
            done += perDataset;
        }
    }

    /**
     * Writes dataset {@code d} (run {@code FIRST_RUN + d}, dspid {@code d + 1}, epoch {@code d % epochs}) with
     * {@code events} events and its LOADED DATASETS row; {@code written} hears the rows applied every 100,000.
     */
    private static void writeDataset(KuduClient client, int d, int epochs, long events,
                                     java.util.function.LongConsumer written) throws Exception {
        KuduTable ds = client.openTable(CONFIG.datasetsTable());
        KuduTable eventsTable = client.openTable(CONFIG.eventsTable());
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(10_000);
        try {
            int run = FIRST_RUN + d;
            String guid = String.format("%08X-0000-4000-8000-%012X", d, d);
            for (long i = 0; i < events; i++) {
                long e = eventNumber(d, i);
                Insert ins = eventsTable.newInsert();
                PartialRow row = ins.getRow();
                row.addInt(KuduSchemas.DSPID, d + 1);
                row.addLong(KuduSchemas.EVENTNUMBER, e);
                row.addInt(KuduSchemas.RGID, d % epochs);
                row.addInt(KuduSchemas.RUNNUMBER, run);
                row.addString(KuduSchemas.DB, guid);
                row.addString(KuduSchemas.TK, token(guid, e));
                row.addString(KuduSchemas.DBRAW, guid);
                session.apply(ins);
                if ((i + 1) % 100_000 == 0) {
                    written.accept(i + 1);
                }
            }
            session.apply(loadedDataset(ds, run, "f1000_m2000", d + 1, d % epochs, events));
            flush(session);
            written.accept(events);
        } finally {
            session.close();
        }
    }

    /** The DATASETS row of a LOADED {@code data18_13TeV.<run>.physics_Main.merge.AOD.<version>}. */
    static Upsert loadedDataset(KuduTable ds, int run, String version, int dspid, int rgid, long events) {
        Upsert up = ds.newUpsert();
        PartialRow row = up.getRow();
        row.addInt(KuduSchemas.RUNNUMBER, run);
        row.addString(KuduSchemas.PROJECT, "data18_13TeV");
        row.addString(KuduSchemas.STREAMNAME, "physics_Main");
        row.addString(KuduSchemas.PRODSTEP, "merge");
        row.addString(KuduSchemas.DATATYPE, "AOD");
        row.addString(KuduSchemas.VERSION, version);
        row.addInt(KuduSchemas.DSPID, dspid);
        row.addInt(KuduSchemas.RGID, rgid);
        row.addString(KuduSchemas.STATE, "LOADED");
        row.addLong(KuduSchemas.COUNT_EVENTS, events);
        return up;
    }

    /** Flushes {@code session}, failing with the first row Kudu refused. */
    static void flush(KuduSession session) throws KuduException {
        session.flush();
        if (session.countPendingErrors() > 0) {
            throw new IllegalStateException("Kudu refused " + session.countPendingErrors() + " rows, first: "
                    + session.getPendingErrors().getRowErrors()[0]);
        }
    }
}
