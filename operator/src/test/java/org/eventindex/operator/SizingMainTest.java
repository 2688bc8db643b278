package org.eventindex.operator;

import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sizing model at the seed's scale (docs/sizing.md's worked example) and its command line. */
class SizingMainTest {
    /** Seed 000 Table 3: 53,845,347,540 events and 26,367 datasets taken by the consumers in 3 months (92 days). */
    private static final long SEED_EVENTS_PER_DAY = 585_000_000;
    private static final long SEED_DATASETS_PER_DAY = 287;

    private static SiteSizing.Inputs seed(long epochMaxEvents) {
        return new SiteSizing.Inputs(SEED_EVENTS_PER_DAY, SEED_DATASETS_PER_DAY, 100_000, 3, 1, epochMaxEvents, 64, 3,
                3, 8, 21_103_653);
    }

    @Test
    void atTheSeedsScaleTheTabletCountSizesKuduNotTheRateNorTheData() {
        SiteSizing.Plan p = SiteSizing.plan(seed(1_000_000_000));
        assertEquals(20_313, p.peakEventsPerSecond(), 1);
        assertEquals(2, p.consumers(), "one consumer takes the peak; two for one down");
        assertEquals(576, p.tabletReplicasPerEpoch(), "3 tables x 64 buckets x 3 replicas");
        assertEquals(214, p.epochsKept(), "585M x 365 / 1e9");
        assertEquals(576L * 214 + 9, p.tabletReplicas());
        assertEquals(2, p.tabletServersForRate());
        assertEquals(13, p.tabletServersForData());
        assertEquals(124, p.tabletServersForTablets());
        assertEquals(4, p.tabletServersForCreation(), "192 replicas of a table at 60 per server");
        assertEquals(124, p.tabletServers());
        assertEquals(2, p.brokers());
        assertEquals(1e9 * 170 / 64, p.eventsTabletBytes(), 1);

        SiteSizing.Plan bigger = SiteSizing.plan(seed(4_000_000_000L));
        assertEquals(54, bigger.epochsKept());
        assertEquals(32, bigger.tabletServers(), "epochs four times larger: a quarter of the tablets");
        assertTrue(bigger.epochMaxEventsForTarget() > 4_000_000_000L, "an EVENTS tablet stays under 10 GiB");
    }

    @Test
    void theCommandPrintsEachResourceWithTheFigureItComesFrom() {
        CommandTreeWalk.Result r = run("--events-per-day", "585000000", "--datasets-per-day", "287");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("tablet servers +124 .*")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches(" {2}for the tablets +124 +123,273 tablet replicas .*")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("consumers +2 .*bench-seed.*")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("HDFS +109\\.7 TB a year .*")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("S3 +692\\.6 GB .*")), r.out());

        CommandTreeWalk.Result zero = run("--events-per-day", "0", "--datasets-per-day", "1");
        assertEquals(2, zero.exit());
        assertTrue(zero.err().startsWith("eventindex sizing: events per day must be at least 1: 0"), zero.err());
        CommandTreeWalk.Result help = run("--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().startsWith("Usage: eventindex sizing "), help.out());
    }

    @Test
    void followsTheCommandLineConventions() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex sizing", SizingMainTest::run));
    }

    private static CommandTreeWalk.Result run(String... args) {
        return CommandTreeWalk.capture((out, err) -> SizingMain.run(args, out, err));
    }
}
