package org.eventindex.io;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LimitedInputStreamTest {
    private static InputStream bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return new ByteArrayInputStream(b);
    }

    @Test
    void endsAfterTheLimitWhateverFollows() throws IOException {
        InputStream under = bytes(10);
        try (InputStream in = new LimitedInputStream(under, 4)) {
            assertEquals(0, in.read());
            byte[] rest = new byte[8];
            assertEquals(3, in.read(rest, 0, 8));
            assertArrayEquals(new byte[] {1, 2, 3, 0, 0, 0, 0, 0}, rest);
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(rest, 0, 8));
            assertEquals(0, in.read(rest, 0, 0));
            assertEquals(4, under.read(), "the bytes after the limit are left in the stream");
        }
    }

    @Test
    void skipAndAvailableStayWithinTheLimit() throws IOException {
        InputStream in = new LimitedInputStream(bytes(10), 6);
        assertEquals(6, in.available());
        assertEquals(5, in.skip(5));
        assertEquals(1, in.skip(100));
        assertEquals(0, in.available());
        assertEquals(-1, in.read());
        assertEquals(new String(new LimitedInputStream(bytes(3), 0).readAllBytes()), "");
    }

    @Test
    void aNegativeLimitIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LimitedInputStream(bytes(1), -1));
    }
}
