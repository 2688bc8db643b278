package org.eventindex.bench.supervisor;

import org.eventindex.bench.SupervisorMessages;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.supervisor.OfflineSupervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.ManualClock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * Supervisor start benchmark (not a test): how long the journal part of a start takes (open, restore, replay: all a
 * start does before it consumes) and how much heap the rebuilt state keeps, for a generated history of
 * {@code --datasets} datasets of {@code --files} input files each (one object per file, a fifth of the files with a
 * second object from a retried job, as in seed 000's dataset), every dataset signalled and DONE but the last
 * {@code --live}, and the cleanup deleting each DONE dataset's objects some datasets later (as its retention runs out).
 * Four starts, each measured {@code --runs} times, interleaved, after one untimed round:
 * <ol>
 *   <li>baseline: the whole journal replayed, cleanup off (nothing retires), each dataset's selection computed again
 *   at each of its objects: what every start cost before checkpoints, retirement and deferred selections;</li>
 *   <li>the same, the selections computed once at the end of the replay (as {@code Supervisor} replays);</li>
 *   <li>the whole journal replayed, with the cleanup's deletions: retired datasets keep only their summary;</li>
 *   <li>the checkpoint written {@code --tail} entries before the end, then those entries: a start today.</li>
 * </ol>
 * Run through {@code bin/bench-supervisor}; results go in docs/performance.md.
 */
public final class SupervisorStartBench {
    private static final int CLEANUP_LAG = 20;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<ConsumerSignal> outbox = new ArrayList<>();

    private record Options(int datasets, int files, int live, long tail, int runs, Path work) {
    }

    private record Start(long entries, long millis, long retainedBytes) {
    }

    /** The command line of {@code bin/bench-supervisor}. */
    @Command(name = "bin/bench-supervisor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Supervisor start benchmark (not a test); results go in"
                    + " docs/performance.md.")
    static final class Line implements Callable<Integer> {
        @Option(names = "--datasets", paramLabel = "N", description = "datasets in the history (default 2000)")
        int datasets = 2000;
        @Option(names = "--files", paramLabel = "N", description = "files per dataset (default 50)")
        int files = 50;
        @Option(names = "--live", paramLabel = "N", description = "datasets not yet retired (default 100)")
        int live = 100;
        @Option(names = "--tail", paramLabel = "ENTRIES", description = "journal entries after the checkpoint"
                + " (default 50000)")
        long tail = 50_000;
        @Option(names = "--runs", paramLabel = "N", description = "timed starts per variant (default 5)")
        int runs = 5;
        @Option(names = "--work", paramLabel = "DIR", description = "journal folder (default /dev/shm/ei-bench-supervisor"
                + " where there is /dev/shm, else in java.io.tmpdir)")
        Path work = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm/ei-bench-supervisor")
                : Path.of(System.getProperty("java.io.tmpdir"), "ei-bench-supervisor");

        @Override
        public Integer call() throws IOException {
            new SupervisorStartBench().run(new Options(datasets, files, Math.min(live, datasets), tail, runs, work));
            return 0;
        }
    }

    public static void main(String[] args) {
        System.exit(CommandLines.execute(new Line(), args, System.out, System.err));
    }

    private void run(Options o) throws IOException {
        deleteTree(o.work());
        Path kept = o.work().resolve("no-cleanup");
        Path retiring = o.work().resolve("checkpointed");
        Path full = o.work().resolve("full-replay");
        System.out.printf(Locale.ROOT, "history: %d datasets x %d files, %d live, journal in %s%n", o.datasets(),
                o.files(), o.live(), o.work());
        long entries = generate(o, kept, false, Long.MAX_VALUE);
        generate(o, retiring, true, Math.max(0, entries - o.tail()));
        concatenate(retiring, full);
        long checkpointBytes = Files.size(retiring.resolve("supervisor.checkpoint"));
        System.out.printf(Locale.ROOT, "journal: %d entries, %.1f MB; checkpoint %.1f MB%n", entries,
                Files.size(kept.resolve(Journal.FILE_NAME)) / 1e6, checkpointBytes / 1e6);

        String[] names = {"whole journal, selection per object (baseline)", "whole journal, no cleanup",
                "whole journal, datasets retired", "checkpoint + tail, datasets retired"};
        Path[] dirs = {kept, kept, full, retiring};
        List<List<Start>> results = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                new ArrayList<>());
        for (int round = -1; round < o.runs(); round++) {
            for (int m = 0; m < dirs.length; m++) {
                Start s = start(dirs[m], m > 0);
                if (round >= 0) {
                    results.get(m).add(s);
                }
            }
            System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, o.runs());
        }
        long checkpointMillis = checkpointMillis(full, o.runs());

        System.out.println();
        System.out.printf(Locale.ROOT, "%-48s %12s %10s %8s %12s %8s%n", "start", "entries", "median ms", "ratio",
                "retained MB", "ratio");
        Start base = median(results.get(0));
        for (int m = 0; m < dirs.length; m++) {
            Start s = median(results.get(m));
            System.out.printf(Locale.ROOT, "%-48s %12d %10d %8.3f %12.1f %8.3f%n", names[m], s.entries(), s.millis(),
                    s.millis() / (double) base.millis(), s.retainedBytes() / 1e6,
                    s.retainedBytes() / (double) base.retainedBytes());
        }
        System.out.printf(Locale.ROOT, "checkpoint of the retired state: %d ms to serialise to a file, no fsync (median of %d), %.1f MB%n",
                checkpointMillis, o.runs(), checkpointBytes / 1e6);
    }

    /** Feeds the history through a real engine and journal; returns the entries written. */
    private long generate(Options o, Path dir, boolean cleanup, long checkpointAt) throws IOException {
        Random random = new Random(7);
        long started = System.nanoTime();
        try (OfflineSupervisor supervisor = OfflineSupervisor.open(config(dir, 1_000_000_000L), clock, outbox::add)) {
            for (int d = 0; d < o.datasets(); d++) {
                dataset(supervisor, random, d, o.files(), d >= o.datasets() - o.live());
                if (cleanup && d >= CLEANUP_LAG) {
                    String old = name(d - CLEANUP_LAG);
                    List<String> urls = supervisor.doneObjects(old);
                    if (!urls.isEmpty()) {
                        supervisor.onObjectsDeleted(old, urls);
                    }
                }
                if (supervisor.lastSeq() >= checkpointAt && supervisor.checkpointSeq() == 0) {
                    supervisor.checkpoint();
                }
                if ((d + 1) % Math.max(1, o.datasets() / 10) == 0) {
                    System.out.printf(Locale.ROOT, "  %s: %d of %d datasets, %d entries, %.0f s%n",
                            dir.getFileName(), d + 1, o.datasets(), supervisor.lastSeq(),
                            (System.nanoTime() - started) / 1e9);
                }
            }
            return supervisor.lastSeq();
        }
    }

    /**
     * The supervisor's configuration for a journal in {@code dir}: its defaults (signal lease, hand-off), the
     * benchmarks' bucket, Kudu epochs of {@code maxEventsPerEpoch} events, and every journal segment kept at a
     * checkpoint (the whole-journal variant is made of them).
     */
    static SupervisorConfig config(Path dir, long maxEventsPerEpoch) throws IOException {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.JOURNAL_DIR, dir.toAbsolutePath().toString());
        p.setProperty(SupervisorConfig.S3_BUCKET, SupervisorMessages.BUCKET);
        p.setProperty(SupervisorConfig.KUDU_EPOCH, "1");
        p.setProperty(SupervisorConfig.KUDU_EPOCH_MAX_EVENTS, Long.toString(maxEventsPerEpoch));
        p.setProperty(SupervisorConfig.JOURNAL_KEEP_SEGMENTS, "1000");
        return SupervisorConfig.fromProperties(p, Map.of());
    }

    private void dataset(OfflineSupervisor supervisor, Random random, int d, int files, boolean live)
            throws IOException {
        String name = name(d);
        List<DatasetManifest.ManifestFile> manifest = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            manifest.add(new DatasetManifest.ManifestFile(fileGuid(d, f), 1000 + f));
        }
        supervisor.onControlMessage(SupervisorMessages.manifest(name, manifest), "c");
        int reported = live ? files / 2 : files;
        for (int f = 0; f < reported; f++) {
            boolean retried = random.nextInt(5) == 0;
            if (retried) { // the first attempt stopped midway: fewer events, never selected
                job(supervisor, name, d, f, 1, 1000 + f - 1 - random.nextInt(500));
            }
            job(supervisor, name, d, f, retried ? 2 : 1, 1000 + f);
            clock.advance(Duration.ofSeconds(1));
        }
        for (ConsumerSignal s : outbox) {
            supervisor.onSignalSent(s);
            supervisor.onControlMessage(SupervisorMessages.done(s), "r");
        }
        outbox.clear();
    }

    private static void job(OfflineSupervisor supervisor, String dataset, int d, int f, int attempt, long events)
            throws IOException {
        String job = (5_000_000 + d * 1000 + f) + "." + attempt;
        supervisor.onProducerMessage(SupervisorMessages.objectStored("m-" + job, dataset, "12345678.G", job,
                uuid(job), fileGuid(d, f), events, 1), "b-" + job);
    }

    static String uuid(String seed) {
        return UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8)).toString().replace("-", "");
    }

    private static String name(int d) {
        return String.format(Locale.ROOT, "data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 300_000 + d);
    }

    private static String fileGuid(int d, int f) {
        return String.format(Locale.ROOT, "6A3B%04X-%04X-0000-0000-%012d", d >>> 16, d & 0xFFFF, f);
    }

    /**
     * One start: open the journal (restore + replay) and keep the state, measuring time and retained heap.
     *
     * @param deferred in replay mode, as {@code Supervisor} starts, or with every entry applied as it is live
     */
    private static Start start(Path dir, boolean deferred) throws IOException {
        SupervisorConfig config = config(dir, 1_000_000_000L);
        long before = usedHeap();
        long t0 = System.nanoTime();
        long entries;
        OfflineSupervisor.Replayed state = OfflineSupervisor.replay(config, deferred);
        try (state) {
            entries = state.entries();
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        long retained = usedHeap() - before;
        if (state.lastSeq() == 0) {
            throw new IllegalStateException("nothing restored from " + dir);
        }
        return new Start(entries, millis, retained);
    }

    /** Median time to serialise (no fsync) a checkpoint of the state the whole journal in {@code dir} rebuilds. */
    private long checkpointMillis(Path dir, int runs) throws IOException {
        OfflineSupervisor.Replayed state = OfflineSupervisor.replay(config(dir, 1_000_000_000L), true);
        state.close();
        long[] millis = new long[runs];
        Path out = dir.resolveSibling("checkpoint-timing");
        Files.createDirectories(out);
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            try (OutputStream os = Files.newOutputStream(out.resolve("state.json"), StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                state.writeCheckpoint(os);
            }
            millis[i] = (System.nanoTime() - t0) / 1_000_000;
        }
        Arrays.sort(millis);
        return millis[runs / 2];
    }

    private static void concatenate(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        Path file = to.resolve(Journal.FILE_NAME);
        try (Stream<Path> files = Files.list(from);
             OutputStream out = Files.newOutputStream(file)) {
            for (Path segment : files.filter(p -> p.getFileName().toString().matches("supervisor\\.journal\\.\\d+"))
                    .sorted().toList()) {
                Files.copy(segment, out);
            }
            Files.copy(from.resolve(Journal.FILE_NAME), out);
        }
    }

    private static Start median(List<Start> starts) {
        List<Start> byTime = starts.stream().sorted((a, b) -> Long.compare(a.millis(), b.millis())).toList();
        List<Long> heaps = starts.stream().map(Start::retainedBytes).sorted().toList();
        return new Start(byTime.get(0).entries(), byTime.get(byTime.size() / 2).millis(),
                heaps.get(heaps.size() / 2));
    }

    /** Heap in use after three full collections. */
    static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
