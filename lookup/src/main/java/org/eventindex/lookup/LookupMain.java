package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * Command line of the event lookup: {@code lookup} (the default) reads {@code run event} lines from a file or stdin
 * and prints the files holding each event; {@code serve} runs the HTTP server. Exit status: 0 when every line was
 * parsed and looked up (found or not), 1 when a line was malformed or a lookup failed, 2 on a usage error.
 */
public final class LookupMain {
    static final String USAGE = """
            Usage:
              lookup [lookup] --masters M [--prefix P] [--threads N] [--batch N] [--dataset-cache-ms N] [--json|--csv]
                     [--stream-type T[,T...]] [--project P] [--ami-tag GLOB] [--dataset GLOB] [--with-duplicates]
                     [FILE|-]
              lookup serve --masters M [--prefix P] [--port N] [--bind ADDR] [--threads N] [--dataset-cache-ms N]
                     [--max-concurrent N] [--max-batch N] [--with-duplicates]

            lookup   input lines 'run event' (e.g. '%08d %09d', whitespace separated; '#' comments) from FILE or
                     stdin. Text output, one line per match on stdout: 'run event GUID type' (type StreamAOD,
                     StreamESD, StreamRAW...: the event's own file, then its provenance). An event not found is
                     'run event NOT_FOUND' on stderr; a malformed line is reported on stderr with its line number and
                     the others continue. --csv: a header and a 'status' column (FOUND/NOT_FOUND/ERROR) on stdout;
                     --json: one JSON object per event on stdout.
                     'run' is the DATASETS run number: the run for real data, the dataset number for simulation.
            serve    HTTP: GET /events/{run}/{event} (200 JSON, 404 when absent), POST /lookup ('run event' lines),
                     GET /health. Prints 'listening on http://ADDR:PORT' and serves until stopped.

            Options:
              --masters M         Kudu master addresses, comma-separated host:port (required)
              --prefix P          table name prefix (default: none)
              --threads N         parallel Kudu point scans (default: 8)
              --batch N           lines looked up per batch (default: 1000)
              --dataset-cache-ms N  reuse a run's LOADED datasets for N ms (default: 1000; 0: read DATASETS for
                                  every lookup); a deleted or reloaded dataset is seen at most N ms late
              --stream-type T     report only these file types, e.g. StreamRAW
              --project P         only datasets of this project, e.g. data17_13TeV
              --ami-tag GLOB      only datasets whose version (AMI tags) matches, e.g. 'f838_*'
              --dataset GLOB      only datasets whose full name matches, e.g. '*.physics_Main.*'
              --with-duplicates   also report the later copies of an event (DUPLICATEDEVENTS)
              --port N            HTTP port, 0 for a free one (default: 8080)
              --bind ADDR         HTTP address (default: 127.0.0.1)
              --max-concurrent N  lookups in progress at once before 503 (default: 64)
              --max-batch N       lines in one POST /lookup before 413 (default: 10000)
            """;

    /** Default TTL of the per-run DATASETS cache ({@link DatasetCache}). */
    static final int DEFAULT_DATASET_CACHE_MS = 1000;
    /** Returned by {@code serve}: the JVM is already shutting down, {@code System.exit} would block. */
    static final int SERVED = -1;
    private static final Set<String> FLAGS = Set.of("json", "csv", "with-duplicates", "help");

    private LookupMain() {
    }

    public static void main(String[] args) {
        int status = run(args, System.in, System.out, System.err);
        if (status != SERVED) {
            System.exit(status);
        }
    }

    /** Runs the lookup command; {@code serve} blocks until the JVM stops. Returns the exit status. */
    static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(args, FLAGS);
        } catch (IllegalArgumentException e) {
            err.println("lookup: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        if (o.flag("help")) {
            out.print(USAGE);
            return 0;
        }
        boolean serve = !o.positional().isEmpty() && o.positional().get(0).equals("serve");
        List<String> files = new ArrayList<>(o.positional());
        if (!files.isEmpty() && (files.get(0).equals("serve") || files.get(0).equals("lookup"))) {
            files.remove(0);
        }
        try {
            String masters = o.required("masters");
            KuduTablesConfig config = new KuduTablesConfig(o.get("prefix", ""),
                    KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1);
            int threads = o.intValue("threads", 8);
            int cacheMs = o.intValue("dataset-cache-ms", DEFAULT_DATASET_CACHE_MS);
            if (cacheMs < 0) {
                throw new IllegalArgumentException("--dataset-cache-ms must be >= 0: " + cacheMs);
            }
            try (KuduClient client = new KuduClient.KuduClientBuilder(masters).build();
                 EventLookup lookup = new EventLookup(client, config, threads, o.flag("with-duplicates"),
                         java.time.Duration.ofMillis(cacheMs))) {
                if (serve) {
                    return serve(o, lookup, out);
                }
                if (files.size() > 1) {
                    throw new IllegalArgumentException("at most one input file, got " + files);
                }
                return lookup(o, lookup, files.isEmpty() ? "-" : files.get(0), stdin, out, err);
            }
        } catch (IllegalArgumentException e) {
            err.println("lookup: " + e.getMessage());
            return 2;
        } catch (IOException | RuntimeException e) {
            err.println("lookup: failed: " + e.getMessage());
            return 1;
        }
    }

    private static int lookup(Options o, EventLookup lookup, String file, InputStream stdin, PrintStream out,
                              PrintStream err) throws IOException {
        if (o.flag("json") && o.flag("csv")) {
            throw new IllegalArgumentException("--json and --csv exclude each other");
        }
        ResultFormat format = o.flag("json") ? ResultFormat.JSON : o.flag("csv") ? ResultFormat.CSV : ResultFormat.TEXT;
        LookupFilter filter = filter(o);
        int batch = o.intValue("batch", 1000);
        LookupInput input;
        try (Reader r = file.equals("-") ? new InputStreamReader(stdin, StandardCharsets.UTF_8)
                : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            input = LookupInput.read(r, file.equals("-") ? "stdin" : file, 0);
        }
        input.errors().forEach(e -> err.println("lookup: " + e.message()));
        format.header(out);
        boolean failed = false;
        List<EventKey> keys = input.keys();
        for (int i = 0; i < keys.size(); i += batch) {
            List<LookupResult> results = lookup.lookup(keys.subList(i, Math.min(keys.size(), i + batch)), filter);
            format.write(results, out, err);
            failed |= results.stream().anyMatch(LookupResult::failed);
        }
        out.flush();
        return failed || !input.errors().isEmpty() ? 1 : 0;
    }

    private static int serve(Options o, EventLookup lookup, PrintStream out) throws IOException {
        ServerLimits limits = ServerLimits.of(o.intValue("max-concurrent", 64), o.intValue("max-batch", 10_000));
        InetSocketAddress address = new InetSocketAddress(o.get("bind", "127.0.0.1"), o.intValue("port", 8080));
        CountDownLatch stopped = new CountDownLatch(1);
        try (LookupServer server = LookupServer.start(address, lookup::lookup, limits)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "lookup-shutdown"));
            out.println("listening on http://" + address.getHostString() + ":" + server.port());
            out.flush();
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return SERVED;
    }

    static LookupFilter filter(Options o) {
        Set<String> types = new LinkedHashSet<>();
        for (String t : o.get("stream-type", "").split(",")) {
            if (!t.isBlank()) {
                types.add(t.strip());
            }
        }
        return new LookupFilter(types, o.get("project", null), o.get("ami-tag", null), o.get("dataset", null));
    }
}
