package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Digests of a file computed in the same streaming pass as its validation: the SHA-256 that travels as object
 * metadata for the consumer, and the MD5 forms from which the ETag the object store must report is derived
 * (S3 and Ceph RGW: MD5 of the content for a single PUT; MD5 of the parts' MD5s, a dash and the part count for a
 * multipart upload). Comparing that ETag checks what the server actually stored, not what the client claimed.
 */
public final class ContentDigests {
    private final long partSize;
    private final MessageDigest sha256 = newDigest("SHA-256");
    private final MessageDigest md5 = newDigest("MD5");
    private final List<byte[]> partMd5s = new ArrayList<>();
    private MessageDigest partMd5 = newDigest("MD5");
    private long inPart;
    private long size;

    /** @param partSize the multipart part size the upload will use */
    public ContentDigests(long partSize) {
        if (partSize <= 0) {
            throw new IllegalArgumentException("partSize must be positive: " + partSize);
        }
        this.partSize = partSize;
    }

    /** Feeds the next bytes of the file. */
    public void update(byte[] buf, int off, int len) {
        sha256.update(buf, off, len);
        md5.update(buf, off, len);
        size += len;
        while (len > 0) {
            int n = (int) Math.min(len, partSize - inPart);
            partMd5.update(buf, off, n);
            inPart += n;
            off += n;
            len -= n;
            if (inPart == partSize) {
                partMd5s.add(partMd5.digest());
                partMd5 = newDigest("MD5");
                inPart = 0;
            }
        }
    }

    /** Ends the input; returns the results. */
    public Result finish() {
        if (inPart > 0) {
            partMd5s.add(partMd5.digest());
        }
        MessageDigest ofParts = newDigest("MD5");
        partMd5s.forEach(ofParts::update);
        HexFormat hex = HexFormat.of();
        return new Result(size, hex.formatHex(sha256.digest()), hex.formatHex(md5.digest()),
                hex.formatHex(ofParts.digest()) + "-" + partMd5s.size());
    }

    private static MessageDigest newDigest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no " + algorithm, e);
        }
    }

    /**
     * @param sha256        hex SHA-256 of the file
     * @param md5           hex MD5 of the file: the ETag of a single PUT
     * @param multipartEtag the ETag of a multipart upload with the part size given at construction
     */
    public record Result(long size, String sha256, String md5, String multipartEtag) {
        public Result {
            requireNonNull(sha256, "sha256 is null");
            requireNonNull(md5, "md5 is null");
            requireNonNull(multipartEtag, "multipartEtag is null");
        }

        /** The ETag the store must report for this file uploaded with {@code settings}. */
        public String expectedEtag(UploadSettings settings) {
            return settings.multipart(size) ? multipartEtag : md5;
        }
    }
}
