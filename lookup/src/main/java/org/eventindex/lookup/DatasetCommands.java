package org.eventindex.lookup;

import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lookup datasets PATTERN} and {@code lookup overlap A B ...|--pattern P}: {@link DatasetQueries} in a shell.
 */
final class DatasetCommands {
    private DatasetCommands() {
    }

    @Command(name = "datasets", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Where each dataset matching PATTERN is in the flow (COLLECTING,"
            + " COMPLETE, SIGNALLED, CONSOLIDATING, LOADING, QUERYABLE, FAILED, UNKNOWN), the time of each stage and"
            + " when it should be queryable: a table, or --json as GET /datasets. Exit 1 when nothing matches or"
            + " Kudu failed.")
    static final class Datasets implements Callable<Integer> {
        @ParentCommand
        private LookupMain main;
        @Spec
        private CommandSpec spec;
        @Mixin
        private LookupMain.Kudu kudu;
        @Option(names = "--json", description = "the answer of GET /datasets?pattern=PATTERN")
        boolean json;
        @Parameters(paramLabel = "PATTERN", arity = "0..1", description = "glob over the full dataset name ('*' any"
                + " characters, '?' one; default: every dataset)")
        String pattern;

        @Override
        public Integer call() {
            kudu.check(spec);
            try (LookupMain.Opened opened = kudu.open(spec)) {
                DatasetStatuses.Answer a = opened.datasets().statuses(pattern);
                if (json) {
                    java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
                    body.put("datasets", a.datasets());
                    body.put("caveat", a.caveat());
                    main.out.println(LookupJson.MAPPER.writeValueAsString(body));
                } else {
                    table(a, main.out);
                }
                if (a.caveat() != null) {
                    main.err.println("lookup datasets: " + a.caveat());
                }
                if (a.datasets().isEmpty()) {
                    main.err.println("lookup datasets: no dataset matches " + (pattern == null ? "" : "'" + pattern
                            + "'"));
                    return 1;
                }
                return 0;
            } catch (IOException | RuntimeException e) {
                return main.failed(e);
            }
        }
    }

    @Command(name = "overlap", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "The events (run, event number) that two or more LOADED datasets"
            + " share, exactly: per pair how many, and which (at most --limit). A table, or --json as GET /overlap."
            + " Exit 1 when a dataset is not queryable or Kudu failed.")
    static final class Overlap implements Callable<Integer> {
        @ParentCommand
        private LookupMain main;
        @Spec
        private CommandSpec spec;
        @Mixin
        private LookupMain.Kudu kudu;
        @Option(names = "--json", description = "the answer of GET /overlap")
        boolean json;
        @Option(names = "--pattern", paramLabel = "GLOB", description = "every LOADED dataset whose name matches")
        String pattern;
        @Option(names = "--limit", paramLabel = "N", description = "shared events listed at most (default: 1000;"
                + " the counts are exact anyway)")
        int limit = DatasetQueries.DEFAULT_LIMIT;
        @Parameters(paramLabel = "DATASET", arity = "0..*", description = "two or more dataset names")
        List<String> datasets = new ArrayList<>();

        @Override
        public Integer call() {
            if (datasets.isEmpty() == (pattern == null)) {
                throw new ParameterException(spec.commandLine(), "name two or more datasets, or give --pattern");
            }
            for (String d : datasets) {
                try {
                    DatasetQueries.checkName(d);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
            }
            if (limit < 0 || limit > DatasetQueries.MAX_LIMIT) {
                throw new ParameterException(spec.commandLine(), "--limit must be within 0.."
                        + DatasetQueries.MAX_LIMIT + ": " + limit);
            }
            kudu.check(spec);
            try (LookupMain.Opened opened = kudu.open(spec)) {
                DatasetOverlaps.Overlap o = opened.datasets().overlap(datasets, pattern, limit);
                if (json) {
                    main.out.println(LookupJson.MAPPER.writeValueAsString(o));
                } else {
                    text(o, main.out);
                }
                return 0;
            } catch (DatasetQueries.NotQueryable e) {
                main.err.println("lookup overlap: " + e.getMessage());
                return 1;
            } catch (IOException | RuntimeException e) {
                return main.failed(e);
            }
        }
    }

    /** One line per dataset: name, state, files received/expected, events, when queryable, detail. */
    static void table(DatasetStatuses.Answer a, PrintStream out) {
        int w = Math.max("DATASET".length(), a.datasets().stream().mapToInt(d -> d.dataset().length()).max()
                .orElse(0));
        String f = "%-" + w + "s  %-13s  %9s  %12s  %-20s  %s%n";
        out.printf(Locale.ROOT, f, "DATASET", "STATE", "FILES", "EVENTS", "QUERYABLE", "DETAIL / ESTIMATE");
        for (DatasetStatus d : a.datasets()) {
            String files = d.objects().received() + "/" + (d.objects().expected() == null ? "?"
                    : d.objects().expected());
            DatasetStatus.Estimate e = d.estimate();
            String when = e.queryableAt() == null ? "-" : "QUERYABLE".equals(d.state()) ? e.queryableAt()
                    : "in " + seconds(e.seconds());
            String detail = d.detail() + ("QUERYABLE".equals(d.state()) ? "" : "; " + e.basis());
            out.printf(Locale.ROOT, f, d.dataset(), d.state(), files, d.events() == null ? "-" : d.events(),
                    when.length() > 20 ? when.substring(0, 19) + "Z" : when, detail);
            StringBuilder stages = new StringBuilder();
            for (DatasetStatus.Stage s : d.stages()) {
                if (s.seconds() != null) {
                    stages.append(stages.isEmpty() ? "" : ", ").append(s.stage()).append(' ')
                            .append(seconds(s.seconds()));
                }
            }
            if (!stages.isEmpty()) {
                out.printf(Locale.ROOT, "%-" + w + "s  stages: %s%n", "", stages);
            }
        }
        out.flush();
    }

    /** The counts per dataset and pair, then one line per shared event: {@code run event dataset,dataset}. */
    static void text(DatasetOverlaps.Overlap o, PrintStream out) {
        o.events().forEach((name, n) -> out.printf(Locale.ROOT, "%12d events  %s%n", n, name));
        for (DatasetOverlaps.Pair p : o.pairs()) {
            out.printf(Locale.ROOT, "%12d shared  %s  %s%n", p.shared(), p.a(), p.b());
        }
        out.printf(Locale.ROOT, "%12d events in two or more datasets (%.2f s)%s%n", o.sharedEvents(), o.seconds(),
                o.truncated() ? "; the first " + o.limit() + " by run and event:" : "");
        for (DatasetOverlaps.Shared s : o.shared()) {
            out.printf(Locale.ROOT, "%08d %09d %s%n", s.run(), s.event(), String.join(",", s.datasets()));
        }
        out.flush();
    }

    private static String seconds(double s) {
        return s < 120 ? String.format(Locale.ROOT, "%.0f s", s) : s < 7200
                ? String.format(Locale.ROOT, "%.0f min", s / 60) : String.format(Locale.ROOT, "%.1f h", s / 3600);
    }
}
