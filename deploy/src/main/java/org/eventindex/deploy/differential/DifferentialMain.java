package org.eventindex.deploy.differential;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code bin/differential}: random objects through the real producer jar and a real consumer (S3, HDFS, Kudu), each
 * checked against "what the producer accepts, the consumer and the loader load exactly; what it refuses, the consumer
 * refuses with the same reason and leaves no trace" ({@link ContentDifferential}). Prints a line per case and a
 * summary table per label; exit status 0 when no violation was found and both accepted and refused cases ran, 1
 * otherwise, 2 for bad usage.
 */
@Command(name = "bin/differential", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = "Random SPB objects through the producer jar and a consumer on real S3,"
        + " HDFS and Kudu: what the producer accepts must load exactly, what it refuses must fail the same way.",
        footer = {"", "bin/differential builds first (mvn -DskipTests package; EI_DIFFERENTIAL_NO_BUILD=1 skips"
                + " it). A case is made again with --seed S --first N --cases 1; its SPB file and the producer's"
                + " output stay in DIR/objects/."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:no violation, both accepted and refused cases ran",
            "1:a violation was found, a side was never exercised, or the run failed", "2:bad usage"})
public final class DifferentialMain implements Callable<Integer> {
    @Spec
    private CommandSpec spec;
    @Option(names = "--seed", paramLabel = "N", description = "seed of the random objects (default 1)")
    private long seed = 1;
    @Option(names = "--cases", paramLabel = "N", description = "cases to run (default 100)")
    private int cases = 100;
    @Option(names = "--first", paramLabel = "N", description = "number of the first case (default 0): cases are"
            + " numbered within their seed, each a function of seed and number alone")
    private int first = 0;
    @Option(names = "--producers", paramLabel = "N", description = "producer dry runs (JVMs) at the same time, ahead"
            + " of the consumer (default 2)")
    private int producers = 2;
    @Option(names = "--work", paramLabel = "DIR", description = "folder for the services' data and the objects"
            + " (default target/differential-<seed>-<time>); kept after the run")
    private Path work;

    private DifferentialMain() {
    }

    /** The checked options of a command line, without running anything (tests). */
    static DifferentialRun.Options parse(String... args) {
        DifferentialMain main = new DifferentialMain();
        CommandLines.of(main, System.out, System.err).parseArgs(args);
        return main.options();
    }

    private DifferentialRun.Options options() {
        atLeast("--cases", cases, 1);
        atLeast("--first", first, 0);
        atLeast("--producers", producers, 1);
        if ((long) first + cases > Integer.MAX_VALUE) {
            throw new ParameterException(spec.commandLine(), "--first + --cases must stay below 2^31");
        }
        Path dir = work != null ? work : Path.of("target", "differential-" + seed + "-" + System.currentTimeMillis());
        return new DifferentialRun.Options(seed, first, cases, dir.toAbsolutePath(), producers);
    }

    private void atLeast(String option, int value, int min) {
        if (value < min) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + min + ", was " + value);
        }
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Parses {@code args} and runs; {@code --help}, {@code --version} and bad options return at once. */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new DifferentialMain(), args, out, err);
    }

    @Override
    public Integer call() {
        DifferentialRun.Options o = options();
        Path jar = Path.of(System.getProperty("ei.producer.jar", "producer/target/eventindex-producer.jar"));
        DifferentialRun.Summary summary;
        try {
            summary = DifferentialRun.run(o, jar.toAbsolutePath(), System.out);
        } catch (Exception e) {
            System.err.println("[differential] the run failed: " + e);
            e.printStackTrace();
            return 1;
        }
        summary.print(System.out);
        return summary.ok() ? 0 : 1;
    }
}
