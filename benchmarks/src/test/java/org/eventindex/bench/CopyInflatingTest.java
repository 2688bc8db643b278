package org.eventindex.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The benchmark's "raw bound + inflation" copy: every byte of the object is copied, and the gzip is checked. */
class CopyInflatingTest {

    @Test
    void copiesEveryByteOfTheObjectWhileInflatingIt() throws IOException {
        byte[] plain = new byte[300_000];
        new Random(11).nextBytes(plain);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(plain, 0, 200_000);
            // compressible half too, so the stream is not all stored blocks
            out.write(new byte[100_000]);
        }
        byte[] object = gz.toByteArray();
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        assertEquals(object.length, ConsumerBenchMain.copyInflating(new ByteArrayInputStream(object), copy));
        assertArrayEquals(object, copy.toByteArray());
    }

    @Test
    void aStreamThatIsNotGzipFails() {
        byte[] notGzip = new byte[1000];
        assertThrows(ZipException.class, () -> ConsumerBenchMain.copyInflating(new ByteArrayInputStream(notGzip),
                new ByteArrayOutputStream()));
    }
}
