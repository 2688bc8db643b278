package org.eventindex.producer;

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
}
