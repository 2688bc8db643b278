package org.eventindex.names;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatasetNameTest {
    private static final String DATA = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    @Test
    void parsesDataName() {
        DatasetName n = DatasetName.parse(DATA);
        assertEquals("data17_13TeV", n.project());
        assertEquals(327636, n.runNumber());
        assertEquals("physics_Main", n.stream());
        assertEquals("merge", n.prodStep());
        assertEquals("AOD", n.dataType());
        assertEquals("f838_m1824", n.version());
        assertEquals("", n.suffix());
        assertEquals(DATA, n.toString());
        assertEquals(DATA, n.container());
    }

    /** DATASETS keeps the suffix in its version column; the name comes back whole, the run padded as parsed. */
    @Test
    void fromTheDatasetsKey() {
        for (String name : new String[] {"data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid11111111_00",
            "mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201_sub0123456789",
            "data17_13TeV.00327636.physics_Main.recon.ESD.f838"}) {
            DatasetName n = DatasetName.parse(name);
            assertEquals(n, DatasetName.fromKey(n.project(), n.runNumber(), n.stream(), n.prodStep(), n.dataType(),
                    n.version() + n.suffix()));
        }
    }

    @Test
    void tidAndSubSuffixes() {
        DatasetName tid = DatasetName.parse(DATA + "_tid12345678_00");
        assertEquals("f838_m1824", tid.version());
        assertEquals("_tid12345678_00", tid.suffix());
        assertEquals(DATA, tid.container());
        assertEquals(DATA + "_tid12345678_00", tid.toString());

        DatasetName sub = DatasetName.parse(DATA + "_sub0123456789");
        assertEquals("_sub0123456789", sub.suffix());
        assertEquals(DATA, sub.container());
    }

    @Test
    void suffixLookalikesStayInTheVersion() {
        DatasetName n = DatasetName.parse(DATA + "_tid1234_00");
        assertEquals("f838_m1824_tid1234_00", n.version());
        assertEquals("", n.suffix());
    }

    @Test
    void simulationNameUsesSixDigitChannel() {
        String mc = "mc16_13TeV.361106.PowhegPythia8EvtGen_AZNLOCTEQ6L1_Zee.merge.AOD.e3601_s3126_r9364_r9315";
        DatasetName n = DatasetName.parse(mc);
        assertEquals(361106, n.runNumber());
        assertEquals(mc, n.toString());
    }

    @Test
    void constructorValidatesAndFormats() {
        DatasetName n = new DatasetName("data17_13TeV", 327636, "physics_Main", "merge", "AOD", "f838_m1824", "");
        assertEquals(DATA, n.toString());
        assertEquals(n, DatasetName.parse(n.toString()));
        assertThrows(IllegalArgumentException.class,
                () -> new DatasetName("data17", 1, "../etc", "merge", "AOD", "f1", ""));
        assertThrows(IllegalArgumentException.class,
                () -> new DatasetName("data17", 1, "s", "merge", "AOD", "f1", "_tid1"));
        assertThrows(IllegalArgumentException.class,
                () -> new DatasetName("data17", 1, "s", "merge", "AOD", "f1_tid12345678_00", ""));
        assertThrows(IllegalArgumentException.class,
                () -> new DatasetName("data17", -1, "s", "merge", "AOD", "f1", ""));
        assertThrows(NullPointerException.class,
                () -> new DatasetName(null, 1, "s", "merge", "AOD", "f1", ""));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "data17_13TeV.00327636.physics_Main.merge.AOD",
        "data17_13TeV.00327636.physics_Main.merge.AOD.f838.extra",
        "data17_13TeV..physics_Main.merge.AOD.f838",
        "data17_13TeV.00327636.physics_Main.merge.AOD.",
        ".00327636.physics_Main.merge.AOD.f838",
        "data17_13TeV.0032763x.physics_Main.merge.AOD.f838",
        "data17_13TeV.327636.physics_Main.merge.AOD.f838",
        "data17_13TeV.99999999999.physics_Main.merge.AOD.f838",
        "data17_13TeV.00327636.physics/Main.merge.AOD.f838",
        "data17_13TeV.00327636.physics_Main.merge.AOD.f838/../x",
        "data17_13TeV.00327636.physics Main.merge.AOD.f838",
        "data17_13TeV.00327636.physics_Main.merge.AOD.f838\n",
        "data17_13TeV.00327636.physics_Main.merge.AOD.f838\u0000",
        "data17_13TeV.00327636.physics_Mäin.merge.AOD.f838",
        "data17_13TeV.00327636.physics_Main.merge.AOD._tid12345678_00",
        "mc16_13TeV.00361106.Powheg.merge.AOD.e3601",
    })
    void rejectsMalformedNames(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DatasetName.parse(name));
        assertTrue(e.getMessage().startsWith("invalid dataset name '"), e.getMessage());
        // Control characters are escaped, never echoed raw into logs.
        assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\u0000"), e.getMessage());
    }

    @Test
    void errorsNameTheReason() {
        assertTrue(message("a.1.b.c.d").contains("expected 6"));
        assertTrue(message("data17.00327636.s..d.v").contains("prodStep"));
        assertTrue(message("data17.x1.s.p.d.v").contains("not a decimal number"));
        assertTrue(message("data17.00000001.s/x.p.d.v").contains("position 17"));
    }

    @Test
    void rejectsNullAndTooLong() {
        assertThrows(IllegalArgumentException.class, () -> DatasetName.parse(null));
        String longVersion = "v".repeat(240);
        String name = "data17_13TeV.00327636.physics_Main.merge.AOD." + longVersion;
        assertTrue(message(name).contains("limit is 255"));
    }

    private static String message(String name) {
        return assertThrows(IllegalArgumentException.class, () -> DatasetName.parse(name)).getMessage();
    }
}
