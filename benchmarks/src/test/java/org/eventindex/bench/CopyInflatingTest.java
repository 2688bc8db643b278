package org.eventindex.bench;

import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.EventSize;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.spb.SpbFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The benchmark's "raw bound + inflation" and "raw bound + the first read" copies: every byte of the object is copied,
 * and the gzip (and the SPB content) is checked.
 */
class CopyInflatingTest {
    @TempDir
    Path dir;

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
    void theFirstReadCopiesEveryByteOfAValidObjectAndRefusesAnInvalidOne() throws IOException {
        GeneratorSpec spec = new GeneratorSpec(ConsumerBenchMain.DATASET, 1, 200, 1, 0, 0, 0, false, 3L,
                EventSize.HEAVY);
        new DatasetGenerator(spec).generate(dir);
        Path file;
        try (var files = Files.list(dir)) {
            file = files.filter(f -> f.toString().endsWith(".ei.spb")).findFirst().orElseThrow();
        }
        byte[] object = Files.readAllBytes(file);
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        assertEquals(object.length, ConsumerBenchMain.copyValidating(new ByteArrayInputStream(object), copy, "a"));
        assertArrayEquals(object, copy.toByteArray());

        byte[] cut = Arrays.copyOf(object, object.length - 20);
        assertThrows(SpbFormatException.class, () -> ConsumerBenchMain.copyValidating(new ByteArrayInputStream(cut),
                new ByteArrayOutputStream(), "cut"));
    }

    @Test
    void aStreamThatIsNotGzipFails() {
        byte[] notGzip = new byte[1000];
        assertThrows(ZipException.class, () -> ConsumerBenchMain.copyInflating(new ByteArrayInputStream(notGzip),
                new ByteArrayOutputStream()));
    }
}
