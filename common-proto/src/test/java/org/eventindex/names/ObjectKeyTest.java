package org.eventindex.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ObjectKeyTest {
    private static final String UUID = "0123456789abcdef0123456789abcdef";

    @Test
    void flavorFromTaskIdSuffix() {
        ObjectKey k = ObjectKey.of("12345678.G", "4000000001.1", UUID);
        assertEquals("panda", k.flavor());
        assertEquals("12345678", k.taskNumber());
        assertEquals("panda/12345678/12345678.G_4000000001.1_" + UUID + ".ei.spb", k.key());
        assertEquals("tier0", ObjectKey.of("1.T", "j", UUID).flavor());
        assertEquals("test", ObjectKey.of("1.X", "j", UUID).flavor());
    }

    @Test
    void refusesWhatCannotFormAKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ObjectKey.of("12345678.Q", "1.1", UUID));
        assertTrue(e.getMessage().contains("'12345678.Q'") && e.getMessage().contains(".Q"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("12345678", "1.1", UUID));
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("abc.G", "1.1", UUID));
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("1.G", "../x", UUID));
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("1.G", "1/2", UUID));
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("1.G", "1.1", "not-hex"));
    }

    @Test
    void parseIsTheInverseOfOf() {
        ObjectKey k = ObjectKey.of("12345678.G", "4000000001.1", UUID);
        assertEquals(k, ObjectKey.parse(k.key()));
        ObjectKey underscores = ObjectKey.of("7.T", "a_b_c", UUID);
        ObjectKey back = ObjectKey.parse(underscores.key());
        assertEquals("7.T", back.taskID());
        assertEquals("a_b_c", back.jobID());
        assertEquals(UUID, back.uuid());
        // the standard dashed form of a uuid is a key too, and parses back
        ObjectKey dashed = ObjectKey.of("7.T", "1.1", "01234567-89ab-cdef-0123-456789abcdef");
        assertEquals(dashed, ObjectKey.parse(dashed.key()));
        assertThrows(IllegalArgumentException.class,
                () -> ObjectKey.of("7.T", "1.1", "0123456789ab-cdef-0123-456789abcdef"));
    }

    @Test
    void parseRefusesKeysNoProducerWrites() {
        String good = ObjectKey.of("12345678.G", "4000000001.1", UUID).key();
        for (String bad : new String[] {
                "", "a", "panda/12345678/x.ei.spb", "x/" + good, good + ".gz", good.replace(".ei.spb", ".spb"),
                // the folder does not match the taskID (another task's prefix)
                "panda/12345679/12345678.G_4000000001.1_" + UUID + ".ei.spb",
                "tier0/12345678/12345678.G_4000000001.1_" + UUID + ".ei.spb",
                "panda/12345678/12345678.G__" + UUID + ".ei.spb",
                "panda/12345678/12345678.G_4000000001.1_" + UUID.toUpperCase(java.util.Locale.ROOT) + ".ei.spb",
                "panda/12345678/12345678.G_../x_" + UUID + ".ei.spb",
                "panda/12345678/12345678.G_" + "j".repeat(2000) + "_" + UUID + ".ei.spb"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse(bad),
                    bad);
            assertTrue(e.getMessage().startsWith("object key '"), e.getMessage());
        }
        IllegalArgumentException folder = assertThrows(IllegalArgumentException.class,
                () -> ObjectKey.parse("panda/99/12345678.G_4000000001.1_" + UUID + ".ei.spb"));
        assertTrue(folder.getMessage().contains("expected " + good), folder.getMessage());
    }
}
