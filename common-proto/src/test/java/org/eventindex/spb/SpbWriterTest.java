package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import static org.eventindex.testing.SpbFixtures.RUN;

import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.begin;
import static org.eventindex.testing.SpbFixtures.event;
import static org.eventindex.testing.SpbFixtures.header;
import static org.eventindex.testing.SpbFixtures.menu;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpbWriterTest {

    @Test
    void refusesMessagesOutOfOrder() throws IOException {
        try (SpbWriter w = new SpbWriter(new ByteArrayOutputStream())) {
            assertThrows(IllegalStateException.class, () -> w.event(event(RUN, 1)));
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
            w.event(event(RUN, 1));
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

    /** A second close writes nothing and does not close the stream again; writing after close is refused. */
    @Test
    void closeIsIdempotent() throws IOException {
        int[] closes = {0};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream() {
            @Override
            public void close() {
                closes[0]++;
            }
        };
        SpbWriter w = new SpbWriter(bytes);
        w.header(header());
        w.beginGuid(begin(GUID_A));
        w.endGuid(1);
        w.finish(1);
        w.close();
        byte[] once = bytes.toByteArray();
        w.close();
        assertEquals(1, closes[0], "the stream is closed once");
        assertArrayEquals(once, bytes.toByteArray(), "a second close writes nothing");
        List<SpbRecord> records = SpbReaderTest.readAll(once);
        assertInstanceOf(SpbRecord.Header.class, records.get(0));
        assertInstanceOf(SpbRecord.Trailer.class, records.get(records.size() - 1));
        assertThrows(IllegalStateException.class, () -> w.header(header()));
    }
}
