package org.eventindex.spb;

import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

import static org.eventindex.spb.SpbFixtures.GUID_A;
import static org.eventindex.spb.SpbFixtures.begin;
import static org.eventindex.spb.SpbFixtures.event;
import static org.eventindex.spb.SpbFixtures.header;
import static org.eventindex.spb.SpbFixtures.menu;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpbWriterTest {

    @Test
    void refusesMessagesOutOfOrder() throws IOException {
        try (SpbWriter w = new SpbWriter(new ByteArrayOutputStream())) {
            assertThrows(IllegalStateException.class, () -> w.event(event(1, 1)));
            assertThrows(IllegalStateException.class, () -> w.beginGuid(begin(GUID_A)));
            assertThrows(IllegalStateException.class, () -> w.finish(0));
            w.header(header());
            assertThrows(IllegalStateException.class, () -> w.header(header()));
            assertThrows(IllegalStateException.class, () -> w.triggerMenu(menu()));
            assertThrows(IllegalStateException.class, () -> w.endGuid(0));
            w.beginGuid(begin(GUID_A));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.finish(0));
            assertTrue(e.getMessage().contains("TRAILER"), e.getMessage());
            w.endGuid(0);
            w.finish(0);
            assertThrows(IllegalStateException.class, () -> w.beginGuid(begin(GUID_A)));
        }
    }

    @Test
    void closeWithoutFinishLeavesATruncatedFile() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SpbWriter w = new SpbWriter(bytes)) {
            w.header(header());
            w.beginGuid(begin(GUID_A));
            w.event(event(1, 1));
        }
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> SpbReaderTest.readAll(bytes.toByteArray()));
        assertEquals(Problem.TRUNCATED, e.problem());
    }

    @Test
    void rejectsNull() throws IOException {
        assertThrows(NullPointerException.class, () -> new SpbWriter(null));
        try (SpbWriter w = new SpbWriter(new ByteArrayOutputStream())) {
            assertThrows(NullPointerException.class, () -> w.header(null));
        }
    }

    @Test
    void closeIsIdempotent() throws IOException {
        SpbWriter w = new SpbWriter(new ByteArrayOutputStream());
        w.header(header());
        w.finish(1);
        w.close();
        w.close();
    }
}
