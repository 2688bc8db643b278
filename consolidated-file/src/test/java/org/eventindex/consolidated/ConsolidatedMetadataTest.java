package org.eventindex.consolidated;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The footer metadata: each distinct trigger menu stored once and bounded; the inline menus of formats 1-2 read. */
class ConsolidatedMetadataTest {
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final ConsolidatedMetadata.MenuInfo MENU_A = menu(1, "L1_A".repeat(1000));
    private static final ConsolidatedMetadata.MenuInfo MENU_B = menu(2, "L1_B".repeat(1000));

    @Test
    void eachDistinctMenuIsStoredOnceAndEveryFileReadsItsOwn() {
        ConsolidatedMetadata meta = metadata(List.of(file("G1", 0), file("G2", 0, 1), file("G3", 1), file("G4")),
                List.of(MENU_A, MENU_B));
        Map<String, String> kv = meta.toKeyValues();
        assertEquals(ConsolidatedSchema.FORMAT_VERSION, kv.get(ConsolidatedSchema.META_FORMAT));
        String all = String.join("\n", kv.values());
        assertEquals(1, occurrences(all, MENU_A.l1Menu()), "menu A stored once");
        assertEquals(1, occurrences(all, MENU_B.l1Menu()), "menu B stored once");

        ConsolidatedMetadata back = ConsolidatedMetadata.fromKeyValues(kv, "test.parquet");
        assertEquals(meta, back);
        assertEquals(List.of(MENU_A, MENU_B), back.menusOf(back.files().get(1)));
        assertEquals(List.of(MENU_B), back.menusOf(back.files().get(2)));
        assertEquals(List.of(), back.menusOf(back.files().get(3)));
    }

    @Test
    void aFormatTwoFooterWithMenusInEveryFileReadsAsTheSameDistinctMenus() {
        Map<String, String> kv = new HashMap<>(metadata(List.of(), List.of()).toKeyValues());
        kv.put(ConsolidatedSchema.META_FORMAT, ConsolidatedSchema.FORMAT_VERSION_2);
        kv.remove(ConsolidatedSchema.META_TRIGGER_MENUS);
        String a = "{\"smk\":1,\"l1psk\":7,\"hltpsk\":9,\"l1Menu\":\"" + MENU_A.l1Menu()
                + "\",\"l2Menu\":null,\"efMenu\":null,\"hltMenu\":\"HLT\"}";
        String b = a.replace("\"smk\":1", "\"smk\":2").replace(MENU_A.l1Menu(), MENU_B.l1Menu());
        kv.put(ConsolidatedSchema.META_FILES, "[" + inline("G1", a) + "," + inline("G2", a + "," + b) + ","
                + inline("G3", "") + "]");

        ConsolidatedMetadata read = ConsolidatedMetadata.fromKeyValues(kv, "old.parquet");
        assertEquals(List.of(MENU_A, MENU_B), read.menus());
        assertEquals(List.of(0), read.files().get(0).menus());
        assertEquals(List.of(0, 1), read.files().get(1).menus());
        assertEquals(List.of(), read.files().get(2).menus());
    }

    @Test
    void aFileReferringToAMenuItDoesNotHoldIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> metadata(List.of(file("G1", 1)), List.of(MENU_A)));
        assertTrue(e.getMessage().contains("file G1 refers to trigger menu 1 of 1"), e.getMessage());
    }

    @Test
    void distinctMenusAreBoundedAndRepeatsAreFree() throws TriggerMenus.LimitException {
        TriggerMenus menus = new TriggerMenus(DATASET);
        String big = "x".repeat((1 << 20) - "HLT".length()); // with its HLT menu, 1 Mi characters a menu
        long fit = TriggerMenus.MAX_CHARS / (1 << 20);
        for (int i = 0; i < fit; i++) {
            assertEquals(i, menus.add(menu(i, big)));
            assertEquals(i, menus.add(menu(i, big)), "a repeat is the same menu");
        }
        TriggerMenus.LimitException e = assertThrows(TriggerMenus.LimitException.class,
                () -> menus.add(menu(-1, big)));
        assertTrue(e.getMessage().startsWith("dataset " + DATASET + ": its distinct trigger menus hold more than "
                + TriggerMenus.MAX_CHARS + " characters"), e.getMessage());
        assertEquals(fit, menus.list().size());
    }

    private static String inline(String guid, String menus) {
        return "{\"guid\":\"" + guid + "\",\"object\":\"s3://h:1/b/k\",\"startProcTime\":1,\"amiTag\":\"f1\","
                + "\"trigStream\":\"physics_Main\",\"projName\":\"data17_13TeV\",\"endProcTime\":2,\"nentries\":3,"
                + "\"menus\":[" + menus + "]}";
    }

    private static ConsolidatedMetadata.MenuInfo menu(long smk, String l1) {
        return new ConsolidatedMetadata.MenuInfo(smk, 7, 9, l1, null, null, "HLT");
    }

    private static ConsolidatedMetadata.FileInfo file(String guid, Integer... menus) {
        return new ConsolidatedMetadata.FileInfo(guid, "s3://h:1/b/k", 1, "f1", "physics_Main", "data17_13TeV", 2, 3,
                List.of(menus));
    }

    private static ConsolidatedMetadata metadata(List<ConsolidatedMetadata.FileInfo> files,
                                                 List<ConsolidatedMetadata.MenuInfo> menus) {
        return new ConsolidatedMetadata(DATASET, "signal-1", new ConsolidatedMetadata.HeaderInfo(1, "t", "j", true,
                true), List.of("s3://h:1/b/k"), files, menus, 3, List.of(327636L), 0, 2, "00");
    }

    private static int occurrences(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
