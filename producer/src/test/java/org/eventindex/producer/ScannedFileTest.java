package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * The digests, computed on their own thread over a second read, are those of the file's bytes; the ETag, computed over
 * another read beside the upload, is that of the same bytes or refused.
 */
class ScannedFileTest {
    private static final long PART = UploadSettings.MIN_PART_SIZE;
    private static final UploadSettings UPLOAD = new UploadSettings(PART, PART);

    @TempDir
    Path dir;

    @Test
    void aMultipartFileHasTheSha256AndTheEtagOfItsParts() throws Exception {
        Path file = dir.resolve("big.ei.spb");
        LargeSpbFiles.write(file, 2 * PART + 12345);
        byte[] bytes = Files.readAllBytes(file);

        ScannedFile scanned = ScannedFile.scan(file, SpbLimits.DEFAULT, UPLOAD);

        HexFormat hex = HexFormat.of();
        assertEquals(bytes.length, scanned.size());
        assertEquals(bytes.length, scanned.summary().compressedBytes());
        assertEquals(hex.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), scanned.sha256());
        MessageDigest ofParts = MessageDigest.getInstance("MD5");
        int parts = 0;
        for (int off = 0; off < bytes.length; off += (int) PART, parts++) {
            ofParts.update(MessageDigest.getInstance("MD5").digest(
                    Arrays.copyOfRange(bytes, off, (int) Math.min(bytes.length, off + PART))));
        }
        assertEquals(3, parts);
        assertEquals(hex.formatHex(ofParts.digest()) + "-3", scanned.digests().etagOf(file, UPLOAD));
        assertEquals(3, scanned.digests().rangeCrcs().length);
    }

    @Test
    void aFileBelowTheThresholdHasTheEtagOfASinglePut() throws Exception {
        Path file = dir.resolve("small.ei.spb");
        LargeSpbFiles.write(file, PART + 12345); // more than a part, less than the threshold: one PUT
        byte[] bytes = Files.readAllBytes(file);
        UploadSettings onePut = new UploadSettings(PART, 4 * PART);

        ScannedFile scanned = ScannedFile.scan(file, SpbLimits.DEFAULT, onePut);

        HexFormat hex = HexFormat.of();
        assertEquals(hex.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), scanned.sha256());
        assertEquals(hex.formatHex(MessageDigest.getInstance("MD5").digest(bytes)),
                scanned.digests().etagOf(file, onePut));
        assertThrows(IllegalArgumentException.class, () -> scanned.digests().etagOf(file, UPLOAD),
                "an ETag of the other form of upload");
    }

    @Test
    void aPartChangedAfterTheValidationHasNoEtag() throws Exception {
        Path file = dir.resolve("big.ei.spb");
        LargeSpbFiles.write(file, 2 * PART + 12345);
        ScannedFile scanned = ScannedFile.scan(file, SpbLimits.DEFAULT, UPLOAD);
        byte[] bytes = Files.readAllBytes(file);
        bytes[(int) PART + 7] ^= 1; // same size, one bit of the second part
        Files.write(file, bytes);

        ContentDigests.FileChangedException e = assertThrows(ContentDigests.FileChangedException.class,
                () -> scanned.digests().etagOf(file, UPLOAD));
        assertTrue(e.getMessage().contains("big.ei.spb changed after it was validated: part 2 of 3"), e.getMessage());
    }

    @Test
    void aFileCutAfterTheValidationHasNoEtag() throws Exception {
        Path file = dir.resolve("small.ei.spb");
        LargeSpbFiles.write(file, PART + 12345);
        UploadSettings onePut = new UploadSettings(PART, 4 * PART);
        ScannedFile scanned = ScannedFile.scan(file, SpbLimits.DEFAULT, onePut);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 1));

        ContentDigests.FileChangedException e = assertThrows(ContentDigests.FileChangedException.class,
                () -> scanned.digests().etagOf(file, onePut));
        assertTrue(e.getMessage().contains(bytes.length + " bytes then, " + (bytes.length - 1) + " now"),
                e.getMessage());
    }

    @Test
    void aFileOfWholePartsHasNoEmptyLastPart() throws Exception {
        ContentDigests digests = new ContentDigests(UPLOAD, 2 * PART);
        byte[] part = new byte[(int) PART];
        digests.update(part, 0, part.length);
        digests.update(part, 0, part.length);
        assertEquals(2, digests.finish().rangeCrcs().length);
        ContentDigests empty = new ContentDigests(UPLOAD, 0);
        assertEquals(1, empty.finish().rangeCrcs().length, "an empty single PUT has one range");
    }

    @Test
    void digestsOfFewerBytesThanTheFormOfUploadWasChosenForAreRefused() {
        ContentDigests digests = new ContentDigests(UPLOAD, PART); // a multipart upload of one part
        digests.update(new byte[1000], 0, 1000); // then the file turns out smaller: a single PUT

        IllegalStateException e = assertThrows(IllegalStateException.class, digests::finish);
        assertTrue(e.getMessage().contains("1000 bytes digested for a multipart upload"), e.getMessage());
    }

    @Test
    void anInvalidFileFailsAndLeavesNoDigestThread() throws IOException {
        Path file = dir.resolve("cut.ei.spb");
        LargeSpbFiles.write(file, PART);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));

        assertThrows(SpbFormatException.class, () -> ScannedFile.scan(file, SpbLimits.DEFAULT, UPLOAD));
        Await.until("the digest thread of cut.ei.spb ends", Duration.ofSeconds(10),
                () -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals("digests of cut.ei.spb")));
    }
}
