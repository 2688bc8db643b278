package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * Digests of a file computed beside its validation: the SHA-256 that travels as object metadata for the consumer,
 * and a CRC-32C of each range the upload sends as one request (each part of a multipart upload, or the whole file
 * for a single PUT). The CRCs tie the file validated to the file uploaded: the ETag the object store must report
 * (S3 and Ceph RGW: the MD5 of the content for a single PUT; the MD5 of the parts' MD5s, a dash and the part count for
 * a multipart upload) is computed by {@link Result#etagOf} over another read of the file beside the upload, which
 * compares each range's CRC with the one taken here, so a file that changed since it was validated is refused
 * rather than verified. The MD5s, the dearest digest (about 600 MB/s on the development machine against 1.3 GB/s
 * for the SHA-256 and 60 GB/s for the CRCs), are thus computed while the upload waits on the network, not while
 * the validation waits on them (decision 0081).
 */
public final class ContentDigests {
    private static final int BUFFER_BYTES = 256 * 1024;

    private final UploadSettings settings;
    private final boolean multipart;
    private final MessageDigest sha256 = newDigest("SHA-256");
    private final Ranges ranges;
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
        this.ranges = new Ranges(multipart ? settings.partSize() : Long.MAX_VALUE, false);
    }

    /** Receives a file's bytes as they are read. */
    @FunctionalInterface
    interface Chunks {
        void accept(byte[] buf, int off, int len);
    }

    /**
     * Reads {@code file} from its start to its end into {@code sink}, in reads of {@value #BUFFER_BYTES} bytes.
     *
     * @param what names the work in the error when the reading thread is interrupted ("the ETag")
     * @return the bytes read
     * @throws InterruptedIOException when the reading thread is interrupted, naming {@code what} and the file
     */
    static long readAll(Path file, String what, Chunks sink) throws IOException {
        long n = 0;
        byte[] buf = new byte[BUFFER_BYTES];
        try (InputStream in = Files.newInputStream(file)) {
            for (int r = in.read(buf); r >= 0; r = in.read(buf)) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException(what + " of " + file + " cancelled");
                }
                sink.accept(buf, 0, r);
                n += r;
            }
        }
        return n;
    }

    /** Feeds the next bytes of the file. */
    public void update(byte[] buf, int off, int len) {
        sha256.update(buf, off, len);
        size += len;
        ranges.update(buf, off, len);
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
        ranges.finish();
        return new Result(size, HexFormat.of().formatHex(sha256.digest()), ranges.crcs(), settings);
    }

    private static MessageDigest newDigest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no " + algorithm, e);
        }
    }

    /**
     * @param sha256    hex SHA-256 of the file
     * @param rangeCrcs CRC-32C of each range the upload sends as one request, in order
     * @param settings  the upload settings the ranges are cut for
     */
    public record Result(long size, String sha256, long[] rangeCrcs, UploadSettings settings) {
        public Result {
            requireNonNull(sha256, "sha256 is null");
            rangeCrcs = requireNonNull(rangeCrcs, "rangeCrcs is null").clone();
            requireNonNull(settings, "settings is null");
        }

        @Override
        public long[] rangeCrcs() {
            return rangeCrcs.clone();
        }

        /**
         * The ETag the store must report for {@code file} uploaded with {@code upload}, computed over a read of the
         * file that must have the bytes digested here (one pass, on the calling thread).
         *
         * @throws FileChangedException when the file now holds other bytes than those digested here
         * @throws IllegalArgumentException when {@code upload} is not the settings the file was digested for
         */
        public String etagOf(Path file, UploadSettings upload) throws IOException {
            requireNonNull(file, "file is null");
            if (!settings.equals(requireNonNull(upload, "upload is null"))) {
                throw new IllegalArgumentException("the file was digested for uploads of " + settings
                        + ", not " + upload);
            }
            boolean multipart = settings.multipart(size);
            Ranges read = new Ranges(multipart ? settings.partSize() : Long.MAX_VALUE, true);
            long n = readAll(file, "the ETag", read::update);
            read.finish();
            long[] crcs = read.crcs();
            if (n != size) {
                throw new FileChangedException(file + " changed after it was validated: " + size + " bytes then, "
                        + n + " now");
            }
            for (int i = 0; i < crcs.length; i++) {
                if (crcs[i] != rangeCrcs[i]) {
                    throw new FileChangedException(file + " changed after it was validated: "
                            + (multipart ? "part " + (i + 1) + " of " + crcs.length + " (bytes from "
                            + i * settings.partSize() + ")" : "its content") + " differs from what was validated");
                }
            }
            return read.etag(multipart);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Result r && size == r.size && sha256.equals(r.sha256)
                    && Arrays.equals(rangeCrcs, r.rangeCrcs) && settings.equals(r.settings);
        }

        @Override
        public int hashCode() {
            return sha256.hashCode();
        }

        @Override
        public String toString() {
            return "Result[size=" + size + ", sha256=" + sha256 + ", ranges=" + rangeCrcs.length + ", settings="
                    + settings + "]";
        }
    }

    /** The file's content changed between two reads of it. */
    public static final class FileChangedException extends IOException {
        public FileChangedException(String message) {
            super(message);
        }
    }

    /** A CRC-32C (and with {@code md5}, an MD5) per range of {@code rangeBytes} bytes, the last one shorter. */
    private static final class Ranges {
        private final long rangeBytes;
        private final CRC32C crc = new CRC32C();
        private final MessageDigest md5;
        private long[] crcs = new long[16];
        private byte[][] md5s = new byte[16][];
        private int count;
        private long inRange;

        Ranges(long rangeBytes, boolean md5) {
            this.rangeBytes = rangeBytes;
            this.md5 = md5 ? newDigest("MD5") : null;
        }

        void update(byte[] buf, int off, int len) {
            while (len > 0) {
                int n = (int) Math.min(len, rangeBytes - inRange);
                crc.update(buf, off, n);
                if (md5 != null) {
                    md5.update(buf, off, n);
                }
                inRange += n;
                off += n;
                len -= n;
                if (inRange == rangeBytes) {
                    close();
                }
            }
        }

        /** Closes the last range: a file's last part, or the whole of an empty one. */
        void finish() {
            if (inRange > 0 || count == 0) {
                close();
            }
        }

        private void close() {
            if (count == crcs.length) {
                crcs = Arrays.copyOf(crcs, 2 * count);
                md5s = Arrays.copyOf(md5s, 2 * count);
            }
            crcs[count] = crc.getValue();
            md5s[count] = md5 == null ? null : md5.digest();
            count++;
            crc.reset();
            inRange = 0;
        }

        long[] crcs() {
            return Arrays.copyOf(crcs, count);
        }

        String etag(boolean multipart) {
            HexFormat hex = HexFormat.of();
            if (!multipart) {
                return hex.formatHex(md5s[0]);
            }
            MessageDigest ofParts = newDigest("MD5");
            for (int i = 0; i < count; i++) {
                ofParts.update(md5s[i]);
            }
            return hex.formatHex(ofParts.digest()) + "-" + count;
        }
    }
}
