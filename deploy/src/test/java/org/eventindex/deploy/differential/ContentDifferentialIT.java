package org.eventindex.deploy.differential;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 30's rule on real components, a bounded run of {@link ContentDifferential}: random objects through the
 * producer jar's dry run and a consumer on S3, HDFS and Kudu; what the producer accepts must be loaded exactly, what it
 * refuses must fail in the consumer (permanent, cause input, the producer's reason) and leave nothing. A fixed seed;
 * {@code -Ddifferential.seed=N} (and {@code -Ddifferential.cases=N}) run other cases, {@code bin/differential} many
 * more (docs/fuzzing.md, which lists what it found). Any violation fails.
 */
class ContentDifferentialIT {
    static final long DEFAULT_SEED = 20261206L;
    static final int DEFAULT_CASES = 44;

    @TempDir
    Path work;

    @Test
    void whatTheProducerAcceptsIsLoadedExactlyAndWhatItRefusesFailsTheSameWayLeavingNothing() throws Exception {
        long seed = Long.getLong("differential.seed", DEFAULT_SEED);
        int cases = Integer.getInteger("differential.cases", DEFAULT_CASES);
        Path jar = Path.of(System.getProperty("ei.producer.jar", "../producer/target/eventindex-producer.jar"));
        // a line per case as it runs; the summary with its rates is bin/differential's, not a test result
        DifferentialRun.Summary s = DifferentialRun.run(new DifferentialRun.Options(seed, 0, cases, work, 2),
                jar.toAbsolutePath(), System.out);

        assertTrue(s.accepted() > 0, "no case was accepted by the producer: the loading side was not checked");
        assertTrue(s.refused() > 0, "no case was refused by the producer: the refusing side was not checked");
        assertEquals(List.of(), s.violations(), "violations of 'what the producer accepts, the consumer and the loader"
                + " must load' (seed " + seed + "; each names its case, label and object)");
    }
}
