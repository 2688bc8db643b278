package org.eventindex.gen;

import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.spb.SpbFormatException;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomObjectsTest {
    private static final int CASES = 400;

    @Test
    void aCaseIsAFunctionOfSeedAndNumberAlone() {
        RandomObjects g = new RandomObjects(42);
        RandomCase later = g.generate(17);
        for (int i = 0; i < 17; i++) {
            g.generate(i);
        }
        RandomCase again = new RandomObjects(42).generate(17);
        assertArrayEquals(later.spb(), again.spb());
        assertEquals(later.label(), again.label());
        assertEquals(later.files(), again.files());
        assertFalse(java.util.Arrays.equals(later.spb(), new RandomObjects(43).generate(17).spb()));
        assertFalse(java.util.Arrays.equals(later.spb(), g.generate(18).spb()));
    }

    /**
     * The generator's intent agrees with the reader both the producer and the consumer use: a case made within the
     * rules is read whole, with the events of its model; a case made past one is refused with the problem it names.
     */
    @Test
    void casesWithinTheRulesAreReadAndCasesPastThemAreRefusedAsIntended() throws IOException {
        RandomObjects g = new RandomObjects(20261206);
        Map<String, int[]> byKind = new TreeMap<>();
        Set<String> datasets = new HashSet<>();
        Set<String> labels = new HashSet<>();
        int within = 0;
        List<String> wrong = new ArrayList<>();
        for (int n = 0; n < CASES; n++) {
            RandomCase rc = g.generate(n);
            labels.add(rc.label());
            assertTrue(datasets.add(rc.dataset()), rc.id() + ": dataset " + rc.dataset() + " twice");
            assertEquals(rc.dataset(), DatasetName.parse(rc.dataset()).toString());
            ObjectKey.of(rc.header().getTaskID(), rc.header().getJobID(), "0123456789abcdef0123456789abcdef");
            byKind.computeIfAbsent(rc.kind(), k -> new int[2])[rc.past() ? 1 : 0]++;
            SpbFormatException refused = null;
            SpbSummary s = null;
            try {
                s = SpbSummary.scan(new ByteArrayInputStream(rc.spb()), rc.id(), SpbLimits.DEFAULT);
            } catch (SpbFormatException e) {
                refused = e;
            }
            if (!rc.past()) {
                within++;
                if (refused != null) {
                    wrong.add(rc.id() + " " + rc.label() + " (" + rc.detail() + ") refused: " + refused.getMessage());
                    continue;
                }
                assertEquals(rc.events(), s.nevents(), rc.id());
                assertEquals(rc.files().size(), s.guids().size(), rc.id());
                assertEquals(rc.uncompressedBytes(), s.uncompressedBytes(), rc.id());
                boolean unlike = rc.label().equals("simulation-flag/unlike-project");
                for (RandomCase.InputFile f : rc.files()) {
                    for (EIEvent_p1 e : f.events()) {
                        assertEquals(rc.simulation() != unlike, e.getIsSimulation(), rc.id());
                    }
                }
            } else if (refused == null) {
                wrong.add(rc.id() + " " + rc.label() + " (" + rc.detail() + ") accepted, expected "
                        + rc.expectedProblem());
            } else if (refused.problem() != rc.expectedProblem()) {
                wrong.add(rc.id() + " " + rc.label() + " refused as " + refused.problem() + ", expected "
                        + rc.expectedProblem() + ": " + refused.getMessage());
            }
        }
        assertEquals(List.of(), wrong);
        for (RandomObjects.Kind k : RandomObjects.Kind.values()) {
            assertTrue(byKind.containsKey(k.label()), "no case of " + k.label() + " in " + CASES);
        }
        for (String both : List.of("tokens", "token-form", "l1-mask", "hlt-mask", "l2-mask", "run", "names", "menus",
                "simulation-flag")) {
            assertTrue(byKind.get(both)[0] > 0 && byKind.get(both)[1] > 0, both + ": " + byKind.get(both)[0]
                    + " within, " + byKind.get(both)[1] + " past");
        }
        double share = within / (double) CASES;
        assertTrue(share > 0.55 && share < 0.78, "share of cases within the rules: " + share);
        for (String label : List.of("tokens/32", "tokens/33", "token-form/oid16", "token-form/1024-bytes",
                "token-form/1025-bytes", "l1-mask/2048-bytes", "l1-mask/2049-bytes", "hlt-mask/16384-bytes",
                "hlt-mask/16385-bytes", "names/512-bytes", "names/513-bytes", "no-input-files/none")) {
            assertTrue(labels.contains(label), label + " not among " + new java.util.TreeSet<>(labels));
        }
    }

    /** A fuzzer's input runs out (every answer 0), or answers only the top of each range: the generator still ends. */
    @Test
    void aSourceThatAnswersZeroStillMakesACase() throws IOException {
        Choices zeros = new Choices() {
            @Override
            public int below(int bound) {
                return 0;
            }

            @Override
            public long bits64() {
                return 0;
            }
        };
        RandomCase rc = RandomObjects.generate(zeros, 0, 0);
        assertEquals("tokens/33", rc.label());
        SpbFormatException e = org.junit.jupiter.api.Assertions.assertThrows(SpbFormatException.class,
                () -> SpbSummary.scan(new ByteArrayInputStream(rc.spb()), rc.id(), SpbLimits.DEFAULT));
        assertEquals(rc.expectedProblem(), e.problem());
        Choices top = new Choices() {
            @Override
            public int below(int bound) {
                return bound - 1;
            }

            @Override
            public long bits64() {
                return -1;
            }
        };
        RandomCase last = RandomObjects.generate(top, 0, 1);
        assertEquals("plain", last.kind());
    }
}
