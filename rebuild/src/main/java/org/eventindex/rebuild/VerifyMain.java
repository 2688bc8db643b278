package org.eventindex.rebuild;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.Verification;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code eventindex verify}: per dataset, the Kudu rows against the HDFS file (counts and a key-and-content checksum,
 * the file's rows built by the loader's own code) and the catalogue's counts, on Spark; {@code --repair} reloads each
 * dataset whose Kudu rows are wrong (docs/rebuild.md).
 */
@Command(name = "eventindex verify", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"Compares, per LOADED dataset, its rows in Kudu (EVENTS or MCEVENTS, DUPLICATEDEVENTS) with"
                + " the rows its HDFS file gives through the loader's own code (counts and a key-and-content"
                + " checksum) and with the catalogue's counts (DATASETS); prints every difference. With --repair, a"
                + " dataset whose Kudu rows are wrong is loaded again from its file and verified again; a file that"
                + " disagrees with the catalogue is reported, never loaded."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every selected dataset agrees (after its repair, with --repair)",
            "1:a difference remains, or the job failed (the message says which and why)", "2:usage error"})
public final class VerifyMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Mixin
    JobOptions job;
    @Option(names = "--repair", description = "reload from its file each dataset whose Kudu rows disagree with a file"
            + " that agrees with the catalogue, then verify it again")
    boolean repair;

    private VerifyMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new VerifyMain(out, err), args, out, err);
    }

    @Override
    public Integer call() {
        DatasetSelection selection = job.selection(spec);
        RebuildTarget tables = new RebuildTarget(job.masters, job.prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS,
                KuduTablesConfig.DEFAULT_REPLICAS, 1);
        return job.run(spec, err, "verify", "eventindex verify " + selection, (client, spark, grants) ->
                report(new VerifyJob(spark, client, grants).run(tables, selection, repair), selection));
    }

    private int report(List<VerifyJob.Checked> checked, DatasetSelection selection) {
        int differ = 0;
        int repaired = 0;
        for (VerifyJob.Checked c : checked) {
            Verification v = c.found();
            if (v.ok()) {
                out.println("OK " + v.dataset() + ": " + v.kudu().events() + " events, " + v.kudu().duplicates()
                        + " duplicates");
                continue;
            }
            differ++;
            out.println(v.verdict() + " " + v.dataset() + " (dspid " + v.dspid() + ", epoch " + v.epoch() + "):");
            v.differences().forEach(d -> out.println("  " + d));
            if (c.afterRepair() != null) {
                if (c.afterRepair().ok()) {
                    repaired++;
                    out.println("  repaired: reloaded from " + c.catalogued().hdfsPath() + ", now OK");
                } else {
                    out.println("  still " + c.afterRepair().verdict() + " after reloading: "
                            + String.join("; ", c.afterRepair().differences()));
                }
            } else if (v.verdict() == Verification.Verdict.KUDU_DIFFERS) {
                out.println("  repair: eventindex verify --dataset '" + v.dataset() + "' --repair ...");
            } else {
                out.println("  the file is not what was loaded: restore " + c.catalogued().hdfsPath()
                        + " or have the dataset consolidated again; Kudu is left as it is");
            }
        }
        long remaining = checked.stream().filter(c -> !c.ok()).count();
        out.printf("verify: %d datasets (%s): %d agree, %d differ, %d repaired, %d still differ%n", checked.size(),
                selection, checked.size() - differ, differ, repaired, remaining);
        return remaining == 0 ? 0 : 1;
    }
}
