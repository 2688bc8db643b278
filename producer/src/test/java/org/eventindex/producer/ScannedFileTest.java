package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import org.eventindex.spb.SpbFormatException;
import org.eventindex.spb.SpbLimits;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The digests, computed on their own thread over a second read, are those of the file's bytes. */
class ScannedFileTest {
    private static final long PART = UploadSettings.MIN_PART_SIZE;

    @TempDir
    Path dir;

    @Test
    void digestsAreTheFilesWholeAndPerPart() throws Exception {
        Path file = dir.resolve("big.ei.spb");
        LargeSpbFiles.write(file, 2 * PART + 12345);
        byte[] bytes = Files.readAllBytes(file);

        ScannedFile scanned = ScannedFile.scan(file, SpbLimits.DEFAULT, PART);

        HexFormat hex = HexFormat.of();
        assertEquals(bytes.length, scanned.size());
        assertEquals(bytes.length, scanned.summary().compressedBytes());
        assertEquals(hex.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), scanned.sha256());
        assertEquals(hex.formatHex(MessageDigest.getInstance("MD5").digest(bytes)), scanned.digests().md5());
        MessageDigest ofParts = MessageDigest.getInstance("MD5");
        int parts = 0;
        for (int off = 0; off < bytes.length; off += (int) PART, parts++) {
            ofParts.update(MessageDigest.getInstance("MD5").digest(
                    Arrays.copyOfRange(bytes, off, (int) Math.min(bytes.length, off + PART))));
        }
        assertEquals(3, parts);
        assertEquals(hex.formatHex(ofParts.digest()) + "-3", scanned.digests().multipartEtag());
    }

    @Test
    void anInvalidFileFailsAndLeavesNoDigestThread() throws IOException {
        Path file = dir.resolve("cut.ei.spb");
        LargeSpbFiles.write(file, PART);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));

        assertThrows(SpbFormatException.class, () -> ScannedFile.scan(file, SpbLimits.DEFAULT, PART));
        Await.until("the digest thread of cut.ei.spb ends", Duration.ofSeconds(10),
                () -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals("digests of cut.ei.spb")));
    }
}
