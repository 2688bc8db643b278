package org.eventindex.rebuild;

import org.apache.kudu.client.KuduClient;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.io.FileReason;
import org.eventindex.kudu.KuduTablesConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The commands that take a rebuild's tables live (docs/rebuild.md, decision 0069): {@code eventindex rebuild
 * catch-up}, {@code swap}, {@code swap-back} and {@code drop-old}. The live tables are {@code --prefix}, the rebuilt
 * (shadow) ones {@code --target-prefix}, and the ones a swap takes out of service {@code --retired-prefix}; swap-back
 * is the swap with the last two exchanged, so an operator gives it the same three prefixes.
 */
final class ShadowMain {
    /** The first words of {@code eventindex rebuild} that name these commands. */
    static final Set<String> COMMANDS = Set.of("catch-up", "swap", "swap-back", "drop-old");

    private ShadowMain() {
    }

    /** Runs {@code args} (the command's name first); returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        Object command = switch (args[0]) {
            case "catch-up" -> new CatchUpCommand(out, err);
            case "swap" -> new SwapCommand(out, err, false);
            case "swap-back" -> new SwapBackCommand(out, err);
            case "drop-old" -> new DropOldCommand(out, err);
            default -> throw new IllegalArgumentException("not a command of eventindex rebuild: " + args[0]);
        };
        return CommandLines.execute(command, rest, out, err);
    }

    /** The options of the commands that run a catch-up on Spark. */
    static final class SparkOptions {
        @Mixin
        JobOptions job;
        @Option(names = "--target-prefix", paramLabel = "P", required = true,
                description = "prefix of the rebuilt (shadow) tables (required)")
        String targetPrefix;
        @Option(names = "--max-tasks", paramLabel = "N",
                description = "at most N Spark tasks per stage (default: one per run or dataset, one write task per"
                        + " core); the throttle that keeps"
                        + " lookups' p99 during a rebuild")
        int maxTasks = Integer.MAX_VALUE;

        /** Checks the options; the selection ones do not apply (a catch-up takes every dataset the target lacks). */
        void check(CommandSpec spec) {
            if (job.all || job.epoch != null || job.glob != null) {
                throw new ParameterException(spec.commandLine(), "a catch-up takes every dataset the target tables"
                        + " lack: no --all, --epoch or --dataset");
            }
            if (maxTasks < 1) {
                throw new ParameterException(spec.commandLine(), "--max-tasks must be at least 1: " + maxTasks);
            }
            if (job.prefix.equals(targetPrefix)) {
                throw new ParameterException(spec.commandLine(), "--target-prefix '" + targetPrefix + "' names the"
                        + " live tables (--prefix)");
            }
        }

        RebuildTarget target(String prefix, byte[] credentials) {
            return new RebuildTarget(job.masters, prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS,
                    KuduTablesConfig.DEFAULT_REPLICAS, 1, credentials);
        }

        static KuduTablesConfig tables(String prefix) {
            return new KuduTablesConfig(prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS,
                    KuduTablesConfig.DEFAULT_REPLICAS);
        }
    }

    /** Prints what a catch-up did; returns whether every dataset was caught up and verifies. */
    static boolean report(PrintStream out, PrintStream err, String from, String into, CatchUp.Result r) {
        for (DatasetOutcome o : r.rebuilt().outcomes()) {
            if (!o.failed()) {
                out.println("caught up " + o.dataset() + ": " + o.events() + " events in " + o.millis() + " ms");
            }
        }
        List<String> problems = r.problems();
        problems.forEach(p -> err.println("catch-up: FAILED " + p));
        out.printf("catch-up: %d datasets of '%s' into '%s' tables: %d verified, %d failed%n",
                r.rebuilt().outcomes().size(), from, into, r.verified().size(), problems.size());
        return problems.isEmpty();
    }

    @Command(name = "eventindex rebuild catch-up", mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class, sortOptions = false,
            description = {"Rebuilds into the shadow tables (--target-prefix) the datasets of the live catalogue"
                    + " (--prefix) that they do not hold with the same load (loaded by the consumers since the rebuild"
                    + " read the catalogue), on Spark, and verifies each against its file. Safe to run again."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:caught up and verified", "1:a dataset failed or differs (named)", "2:usage error"})
    static final class CatchUpCommand implements Callable<Integer> {
        private final PrintStream out;
        private final PrintStream err;
        @Spec
        CommandSpec spec;
        @Mixin
        SparkOptions options;

        CatchUpCommand(PrintStream out, PrintStream err) {
            this.out = out;
            this.err = err;
        }

        @Override
        public Integer call() {
            options.check(spec);
            JobOptions job = options.job;
            return job.run(spec, err, "catch-up", "eventindex rebuild catch-up", (client, spark, credentials) -> {
                CatchUp.Result r = new CatchUp(spark, client, options.maxTasks)
                        .run(SparkOptions.tables(job.prefix), options.target(options.targetPrefix, credentials));
                return report(out, err, job.prefix, options.targetPrefix, r) ? 0 : 1;
            });
        }
    }

    @Command(name = "eventindex rebuild swap", mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class, sortOptions = false,
            description = {"Takes the shadow tables live: catches them up with the live catalogue and verifies what"
                    + " it caught up (nothing is renamed if a dataset fails); renames each live table to"
                    + " --retired-prefix and the shadow table to the live name, DATASETS last (lookups move when"
                    + " DATASETS does); then catches the new live tables up with what the consumers loaded into the"
                    + " old ones meanwhile. The old tables stay until 'drop-old'. Run again after a failure or a kill:"
                    + " it finishes what is left."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:swapped", "1:not swapped, or swapped with a dataset not caught up (named, with the"
                    + " command that finishes it)", "2:usage error"})
    static class SwapCommand implements Callable<Integer> {
        private final PrintStream out;
        private final PrintStream err;
        private final boolean back;
        @Spec
        CommandSpec spec;
        @Mixin
        SparkOptions options;
        @Option(names = "--retired-prefix", paramLabel = "P", required = true,
                description = "prefix the live tables get when a swap takes them out of service (required)")
        String retiredPrefix;

        SwapCommand(PrintStream out, PrintStream err, boolean back) {
            this.out = out;
            this.err = err;
            this.back = back;
        }

        @Override
        public Integer call() {
            options.check(spec);
            JobOptions job = options.job;
            String live = job.prefix;
            if (retiredPrefix.equals(live) || retiredPrefix.equals(options.targetPrefix)) {
                throw new ParameterException(spec.commandLine(), "--retired-prefix '" + retiredPrefix + "' must"
                        + " differ from --prefix and --target-prefix");
            }
            String incoming = back ? retiredPrefix : options.targetPrefix;
            String outgoing = back ? options.targetPrefix : retiredPrefix;
            String name = back ? "swap-back" : "swap";
            return job.run(spec, err, name, "eventindex rebuild " + name, (client, spark, credentials) -> {
                CatchUp catchUp = new CatchUp(spark, client, options.maxTasks);
                TableSwap swap = new TableSwap(client);
                // a swap killed halfway has renamed some of the incoming tables: it is finished, not caught up again
                boolean untouched = TableSwap.names(incoming).stream().allMatch(t -> exists(client, t));
                if (untouched && client.tableExists(SparkOptions.tables(live).datasetsTable())
                        && !report(out, err, live, incoming, catchUp.run(SparkOptions.tables(live),
                        options.target(incoming, credentials)))) {
                    err.println(name + ": not swapped: the '" + incoming + "' tables are not caught up");
                    return 1;
                }
                List<String> renames = swap.swap(live, incoming, outgoing);
                renames.forEach(r -> out.println("renamed " + r));
                out.println(name + ": the '" + incoming + "' tables are live as '" + live + "', the old ones are '"
                        + outgoing + "'");
                // what the consumers loaded into the old tables while they were being renamed
                if (!report(out, err, outgoing, live, catchUp.run(SparkOptions.tables(outgoing),
                        options.target(live, credentials)))) {
                    err.println(name + ": swapped, but datasets loaded meanwhile are not caught up: run eventindex"
                            + " rebuild catch-up --prefix " + outgoing + " --target-prefix " + live + " ...");
                    return 1;
                }
                return 0;
            });
        }
    }

    @Command(name = "eventindex rebuild swap-back", mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class, sortOptions = false,
            description = {"Undoes a swap: the swap with --retired-prefix and --target-prefix exchanged. Give it the"
                    + " prefixes of the swap: the retired tables are caught up with what was loaded since, go live"
                    + " again, and the rebuilt ones go back to --target-prefix (kept). Run again after a failure or a"
                    + " kill: it finishes what is left."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:swapped back", "1:not swapped back, or with a dataset not caught up (named, with the"
                    + " command that finishes it)", "2:usage error"})
    static final class SwapBackCommand extends SwapCommand {
        SwapBackCommand(PrintStream out, PrintStream err) {
            super(out, err, true);
        }
    }

    private static boolean exists(KuduClient client, String table) {
        try {
            return client.tableExists(table);
        } catch (org.apache.kudu.client.KuduException e) {
            throw new IllegalStateException("cannot tell whether table " + table + " exists: " + e.getMessage(), e);
        }
    }

    @Command(name = "eventindex rebuild drop-old", mixinStandardHelpOptions = true,
            versionProvider = VersionProvider.class, sortOptions = false,
            description = {"Deletes the tables a swap retired (--retired-prefix): no swap-back after this."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:dropped (or nothing to drop)", "1:Kudu failed (the message says why)",
                "2:usage error"})
    static final class DropOldCommand implements Callable<Integer> {
        private final PrintStream out;
        private final PrintStream err;
        @Spec
        CommandSpec spec;
        @Option(names = "--masters", paramLabel = "M", required = true,
                description = "Kudu master addresses, comma-separated host:port (required)")
        String masters;
        @Option(names = "--prefix", paramLabel = "P", description = "prefix of the live tables (default: none)")
        String prefix = "";
        @Option(names = "--retired-prefix", paramLabel = "P", required = true,
                description = "prefix of the tables to delete (required; not the live one)")
        String retiredPrefix;
        @Mixin
        org.eventindex.cluster.ClusterOptions cluster;

        DropOldCommand(PrintStream out, PrintStream err) {
            this.out = out;
            this.err = err;
        }

        @Override
        public Integer call() {
            if (retiredPrefix.equals(prefix)) {
                throw new ParameterException(spec.commandLine(), "--retired-prefix '" + retiredPrefix + "' names the"
                        + " live tables");
            }
            try (ClusterAccess access = cluster.open();
                 KuduClient client = access.connectedKuduClient(masters, Duration.ofSeconds(30))) {
                List<String> dropped = new TableSwap(client).drop(retiredPrefix);
                dropped.forEach(t -> out.println("dropped " + t));
                out.println("drop-old: " + dropped.size() + " tables with prefix '" + retiredPrefix + "' deleted");
                return 0;
            } catch (ClusterConfigException e) {
                err.println("drop-old: " + e.getMessage());
                return CommandLines.USAGE_ERROR;
            } catch (IOException | RuntimeException e) {
                err.println("drop-old: failed: " + (e instanceof IOException io ? FileReason.describe(io)
                        : e.getMessage()));
                return 1;
            }
        }
    }
}
