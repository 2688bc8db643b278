package org.eventindex.deploy.differential;

import org.eventindex.gen.RandomCase;
import org.eventindex.gen.RandomObjects;
import org.eventindex.message.ConsumerReport;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static java.util.Objects.requireNonNull;

/**
 * Runs cases {@code first .. first + cases - 1} of a seed through {@link ContentDifferential}: the producer dry runs
 * (separate JVMs) go ahead on a few threads while the consumer takes the cases strictly in order, so the outcome does
 * not depend on timing. Prints one line per case and returns the {@link Summary}.
 */
public final class DifferentialRun {

    /**
     * @param producers producer processes run at the same time, ahead of the consumer
     */
    public record Options(long seed, int first, int cases, Path work, int producers) {
        public Options {
            requireNonNull(work, "work is null");
            if (first < 0 || cases < 1 || producers < 1) {
                throw new IllegalArgumentException("first >= 0, cases >= 1 and producers >= 1: " + first + ", "
                        + cases + ", " + producers);
            }
        }
    }

    private DifferentialRun() {
    }

    /** A case generated and judged by the producer, or what went wrong on the way. */
    private record Produced(RandomCase rc, ProducerVerdict verdict, Exception failure) {
    }

    public static Summary run(Options o, Path producerJar, PrintStream out) throws IOException, InterruptedException {
        RandomObjects generator = new RandomObjects(o.seed());
        Summary summary = new Summary(o.seed());
        long t0 = System.nanoTime();
        out.println("[differential] seed " + o.seed() + ", cases " + o.first() + ".." + (o.first() + o.cases() - 1)
                + ", work " + o.work());
        try (ContentDifferential d = ContentDifferential.start(o.work(), producerJar)) {
            out.printf(Locale.ROOT, "[differential] S3, HDFS and Kudu up, consumer ready (%.1f s)%n",
                    (System.nanoTime() - t0) / 1e9);
            ExecutorService pool = Executors.newFixedThreadPool(o.producers(), r -> {
                Thread t = new Thread(r, "differential-producer");
                t.setDaemon(true);
                return t;
            });
            try {
                Deque<Future<Produced>> ahead = new ArrayDeque<>();
                int next = o.first();
                int end = o.first() + o.cases();
                int window = 2 * o.producers();
                for (int n = o.first(); n < end; n++) {
                    while (next < end && ahead.size() < window) {
                        int number = next++;
                        ahead.add(pool.submit(() -> produce(generator, d, number)));
                    }
                    Produced p = get(ahead.poll());
                    ContentDifferential.CaseResult r;
                    if (p.failure() != null) {
                        RandomCase rc = p.rc();
                        r = new ContentDifferential.CaseResult(rc, null, null, null, List.of("the producer could not"
                                + " be run: " + p.failure()), Duration.ZERO);
                    } else {
                        r = d.check(p.rc(), p.verdict());
                    }
                    summary.add(r);
                    out.println(line(n - o.first() + 1, o.cases(), r));
                    for (String v : r.violations()) {
                        out.println("    VIOLATION " + v);
                    }
                    out.flush();
                }
            } finally {
                pool.shutdownNow();
            }
        }
        summary.took = Duration.ofNanos(System.nanoTime() - t0);
        return summary;
    }

    private static Produced produce(RandomObjects generator, ContentDifferential d, int number) {
        RandomCase rc = generator.generate(number);
        try {
            return new Produced(rc, d.produce(rc), null);
        } catch (IOException | RuntimeException e) {
            return new Produced(rc, null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Produced(rc, null, e);
        }
    }

    private static Produced get(Future<Produced> f) throws InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("generating a case failed: " + e.getCause(), e.getCause());
        }
    }

    private static String line(int i, int of, ContentDifferential.CaseResult r) {
        RandomCase rc = r.rc();
        ConsumerReport report = r.report();
        String consumer = report == null ? "not run" : ConsumerReport.DONE.equals(report.status())
                ? "DONE " + report.eventsWritten() + " events (" + report.duplicateEvents() + " duplicates)"
                : report.status() + " (" + report.cause() + (report.permanent() ? ", permanent" : ", transient") + ")";
        return String.format(Locale.ROOT, "[differential] %d/%d %s %-32s %d events: producer %s %.2f s, consumer %s"
                        + " %.2f s: %s", i, of, rc.id(), rc.label(), rc.events(),
                r.producer() == null ? "-" : r.producer().summary(),
                r.producer() == null ? 0.0 : r.producer().took().toNanos() / 1e9, consumer,
                r.consumerTook().toNanos() / 1e9, r.ok() ? "ok" : r.violations().size() + " VIOLATION(S)");
    }

    /** Counts per label, the violations and the times of a run. */
    public static final class Summary {
        private final long seed;
        /** label -> {cases, accepted, refused, with violations} */
        private final Map<String, int[]> byLabel = new TreeMap<>();
        private final List<String> violations = new ArrayList<>();
        private long producerNanos;
        private long consumerNanos;
        private Duration took = Duration.ZERO;

        Summary(long seed) {
            this.seed = seed;
        }

        void add(ContentDifferential.CaseResult r) {
            int[] c = byLabel.computeIfAbsent(r.rc().label(), k -> new int[4]);
            c[0]++;
            if (r.producer() != null && r.producer().accepted()) {
                c[1]++;
            } else if (r.producer() != null && r.producer().refused()) {
                c[2]++;
            }
            if (!r.ok()) {
                c[3]++;
                for (String v : r.violations()) {
                    violations.add(r.rc().id() + " [" + r.rc().label() + "] object " + (r.url() == null ? "(none)"
                            : r.url()) + ": " + v);
                }
            }
            producerNanos += r.producer() == null ? 0 : r.producer().took().toNanos();
            consumerNanos += r.consumerTook().toNanos();
        }

        public int cases() {
            return total(0);
        }

        public int accepted() {
            return total(1);
        }

        public int refused() {
            return total(2);
        }

        /** Every violation, one line each, naming the case, its label and the object. */
        public List<String> violations() {
            return List.copyOf(violations);
        }

        /** Counts per label: cases, accepted, refused, cases with violations. */
        public Map<String, int[]> byLabel() {
            return byLabel;
        }

        public Duration took() {
            return took;
        }

        /** No violation, and both sides of the property were exercised (some accepted, some refused). */
        public boolean ok() {
            return violations.isEmpty() && accepted() > 0 && refused() > 0;
        }

        private int total(int column) {
            return byLabel.values().stream().mapToInt(c -> c[column]).sum();
        }

        public void print(PrintStream out) {
            out.println();
            out.printf(Locale.ROOT, "%-36s %6s %9s %8s %11s%n", "label", "cases", "accepted", "refused", "violations");
            byLabel.forEach((label, c) -> out.printf(Locale.ROOT, "%-36s %6d %9d %8d %11d%n", label, c[0], c[1], c[2],
                    c[3]));
            out.printf(Locale.ROOT, "%-36s %6d %9d %8d %11d%n", "all", cases(), accepted(), refused(),
                    byLabel.values().stream().mapToInt(c -> c[3]).sum());
            double seconds = took.toNanos() / 1e9;
            out.printf(Locale.ROOT, "seed %d: %d cases in %.1f s (%.2f cases/s); producer dry run %.2f s per case,"
                            + " consumer and checks %.2f s per case%n", seed, cases(), seconds, cases() / seconds,
                    producerNanos / 1e9 / Math.max(1, cases()), consumerNanos / 1e9 / Math.max(1, cases()));
            if (accepted() == 0 || refused() == 0) {
                out.println("one side of the property was not exercised: " + accepted() + " accepted, " + refused()
                        + " refused");
            }
            out.println("violations: " + violations.size());
            violations.forEach(v -> out.println("  " + v));
        }
    }
}
