package org.eventindex.bench.supervisor;

import org.eventindex.bench.SupervisorMessages;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.message.DatasetManifest;
import org.eventindex.supervisor.OfflineSupervisor;
import org.eventindex.testing.ManualClock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * Supervisor memory benchmark (not a test; issue 22 item 5): the heap the supervisor keeps for live datasets of seed
 * 000's size. Real producer messages (JSON, through the validator) and manifests go to a real engine and journal;
 * each dataset has {@code --files} input files and {@code --objects} objects (one per file, the rest retried jobs'
 * second objects), so it completes and is signalled (SIGNAL_PLANNED, not DONE: nothing retires). The heap retained
 * after a full GC is printed at a quarter, half and all of {@code --datasets}, then for a quarter as many datasets
 * four times as large: bytes per dataset and per object stay flat if nothing grows with the square of a size.
 * Run through {@code bin/bench-supervisor memory}; results go in docs/performance-log.md.
 */
@Command(name = "bin/bench-supervisor memory", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class, description = "Retained heap of the supervisor holding live"
        + " datasets of the seed's size (real messages through a real engine and journal).")
public final class SupervisorMemoryBench implements Callable<Integer> {
    @Option(names = "--datasets", paramLabel = "N", description = "live datasets (default 100)")
    int datasets = 100;
    @Option(names = "--files", paramLabel = "N", description = "input files per dataset (default 1160, seed 000)")
    int files = 1_160;
    @Option(names = "--objects", paramLabel = "N", description = "objects per dataset, >= --files (default 1447)")
    int objects = 1_447;
    @Option(names = "--work", paramLabel = "DIR", description = "journal folder, wiped first (default"
            + " /dev/shm/ei-bench-supervisor-memory)")
    Path work = Paths.get("/dev/shm", "ei-bench-supervisor-memory");

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

    public static void main(String[] args) {
        System.exit(CommandLines.execute(new SupervisorMemoryBench(), args, System.out, System.err));
    }

    @Override
    public Integer call() throws IOException {
        if (datasets < 4 || files < 1 || objects < files) {
            System.err.println("need --datasets >= 4 and --objects >= --files >= 1");
            return 2;
        }
        System.out.printf(Locale.ROOT, "%-34s %9s %11s %12s %14s %13s%n", "live datasets", "datasets", "objects",
                "retained MB", "B per dataset", "B per object");
        try {
            measure("seed size", datasets, files, objects, datasets / 4, datasets / 2);
            measure("4x seed size", datasets / 4, files * 4, objects * 4, datasets / 16, datasets / 8);
        } finally {
            SupervisorStartBench.deleteTree(work);
        }
        return 0;
    }

    /** Feeds {@code n} datasets, printing the retained heap after {@code first}, {@code second} and all of them. */
    private void measure(String label, int n, int fileCount, int objectCount, int first, int second)
            throws IOException {
        SupervisorStartBench.deleteTree(work);
        long base = SupervisorStartBench.usedHeap();
        try (OfflineSupervisor supervisor = OfflineSupervisor.open(SupervisorStartBench.config(work, Long.MAX_VALUE),
                clock, s -> { })) {
            long t0 = System.nanoTime();
            for (int d = 0; d < n; d++) {
                dataset(supervisor, label, d, fileCount, objectCount);
                int done = d + 1;
                if (done == first || done == second || done == n) {
                    long retained = SupervisorStartBench.usedHeap() - base;
                    long live = supervisor.signalledDatasets();
                    if (live != done) {
                        throw new IllegalStateException(live + " of " + done + " datasets signalled");
                    }
                    System.out.printf(Locale.ROOT, "%-34s %9d %11d %12.1f %14.0f %13.0f%n",
                            label + " (" + fileCount + " files)", done, (long) done * objectCount, retained / 1e6,
                            retained / (double) done, retained / ((double) done * objectCount));
                }
            }
            System.err.printf(Locale.ROOT, "  %s: %d messages in %.1f s%n", label, (long) n * objectCount,
                    (System.nanoTime() - t0) / 1e9);
            // keep the state reachable until every measurement is taken
            if (supervisor.datasets() != n) {
                throw new IllegalStateException(supervisor.datasets() + " datasets, not " + n);
            }
        }
    }

    /** One dataset: its manifest, then per file a job's object, a retried job's second object after some. */
    private void dataset(OfflineSupervisor supervisor, String label, int d, int fileCount, int objectCount)
            throws IOException {
        String name = String.format(Locale.ROOT, "data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824_tid%08d_00",
                300_000 + d, 20_000_000 + d);
        List<DatasetManifest.ManifestFile> manifest = new ArrayList<>(fileCount);
        for (int f = 0; f < fileCount; f++) {
            manifest.add(new DatasetManifest.ManifestFile(fileGuid(label, d, f), 1000 + f % 500));
        }
        supervisor.onControlMessage(SupervisorMessages.manifest(name, manifest), "c-" + d);
        int retries = objectCount - fileCount;
        for (int f = 0; f < fileCount; f++) {
            job(supervisor, name, label, d, f, 1);
            if (f < retries) {
                job(supervisor, name, label, d, f, 2);
            }
            clock.advance(Duration.ofMillis(100));
        }
    }

    private static void job(OfflineSupervisor supervisor, String dataset, String label, int d, int f, int attempt)
            throws IOException {
        String job = label.replace(' ', '-') + "-" + (4_000_000 + d * 10_000 + f) + "." + attempt;
        String jobID = (4_000_000 + d * 10_000 + f) + "." + attempt;
        supervisor.onProducerMessage(SupervisorMessages.objectStored(UUID.randomUUID().toString(), dataset,
                "12345678.G", jobID, SupervisorStartBench.uuid(job), fileGuid(label, d, f), 1000 + f % 500, 1),
                "b-" + job);
    }

    private static String fileGuid(String label, int d, int f) {
        return UUID.nameUUIDFromBytes((label + "/" + d + "/" + f).getBytes(StandardCharsets.UTF_8)).toString()
                .toUpperCase(Locale.ROOT);
    }
}
