package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Digests of a file computed beside its validation: the SHA-256 that travels as object metadata for the consumer, and
 * the ETag the object store must report for the file uploaded with the producer's {@link UploadSettings} (S3 and Ceph
 * RGW: the MD5 of the content for a single PUT; the MD5 of the parts' MD5s, a dash and the part count for a multipart
 * upload). Comparing that ETag checks what the server actually stored, not what the client claimed. Only the MD5s of
 * the upload's form are computed: a whole-file MD5 beside the parts' MD5s was one more pass over every byte for an
 * ETag no one compares (decision 0077).
 */
public final class ContentDigests {
    private final UploadSettings settings;
    private final boolean multipart;
    private final MessageDigest sha256 = newDigest("SHA-256");
    private final List<byte[]> partMd5s = new ArrayList<>();
    /** The whole file's MD5 (a single PUT), or the current part's (multipart). */
    private MessageDigest md5 = newDigest("MD5");
    private long inPart;
    private long size;

    /**
     * @param settings how the file will be uploaded
     * @param size     the file's size before it is read: it decides the upload's form, so the file must keep it
     */
    public ContentDigests(UploadSettings settings, long size) {
        this.settings = requireNonNull(settings, "settings is null");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative: " + size);
        }
        this.multipart = settings.multipart(size);
    }

    /** Feeds the next bytes of the file. */
    public void update(byte[] buf, int off, int len) {
        sha256.update(buf, off, len);
        size += len;
        if (!multipart) {
            md5.update(buf, off, len);
            return;
        }
        long partSize = settings.partSize();
        while (len > 0) {
            int n = (int) Math.min(len, partSize - inPart);
            md5.update(buf, off, n);
            inPart += n;
            off += n;
            len -= n;
            if (inPart == partSize) {
                partMd5s.add(md5.digest());
                inPart = 0;
            }
        }
    }

    /**
     * Ends the input; returns the results.
     *
     * @throws IllegalStateException when the bytes fed call for the other form of upload than the size given at
     *                               construction (the file changed while it was read)
     */
    public Result finish() {
        if (settings.multipart(size) != multipart) {
            throw new IllegalStateException(size + " bytes digested for a " + (multipart ? "multipart upload"
                    : "single PUT") + ", which they are not uploaded as");
        }
        HexFormat hex = HexFormat.of();
        String etag;
        if (multipart) {
            if (inPart > 0) {
                partMd5s.add(md5.digest());
            }
            MessageDigest ofParts = newDigest("MD5");
            partMd5s.forEach(ofParts::update);
            etag = hex.formatHex(ofParts.digest()) + "-" + partMd5s.size();
        } else {
            etag = hex.formatHex(md5.digest());
        }
        return new Result(size, hex.formatHex(sha256.digest()), etag, settings);
    }

    private static MessageDigest newDigest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no " + algorithm, e);
        }
    }

    /**
     * @param sha256   hex SHA-256 of the file
     * @param etag     the ETag the store must report for the file uploaded with {@code settings}
     * @param settings the upload settings the ETag is computed for
     */
    public record Result(long size, String sha256, String etag, UploadSettings settings) {
        public Result {
            requireNonNull(sha256, "sha256 is null");
            requireNonNull(etag, "etag is null");
            requireNonNull(settings, "settings is null");
        }

        /** The ETag the store must report for this file uploaded with {@code uploadSettings}. */
        public String expectedEtag(UploadSettings uploadSettings) {
            if (!settings.equals(uploadSettings)) {
                throw new IllegalArgumentException("the file was digested for uploads of " + settings
                        + ", not " + uploadSettings);
            }
            return etag;
        }
    }
}
