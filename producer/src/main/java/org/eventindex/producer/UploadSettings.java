package org.eventindex.producer;

/**
 * How files are uploaded. A file of {@code multipartThreshold} bytes or more goes as a multipart upload of
 * {@code partSize} parts, each streamed from the file; smaller files go as one PUT. The JDK URL-connection HTTP client
 * holds one request body in memory while sending it, so the producer's heap use is bounded by these sizes, not by the
 * file size.
 *
 * @param partSize           bytes per part except the last, at least 5 MiB (the S3 minimum)
 * @param multipartThreshold files of at least this size use multipart upload; at least {@code partSize}
 */
public record UploadSettings(long partSize, long multipartThreshold) {
    /** The S3 minimum part size (except for the last part). */
    public static final long MIN_PART_SIZE = 5L << 20;
    /** The S3 maximum number of parts of one upload. */
    public static final int MAX_PARTS = 10_000;
    /** 8 MiB parts from 8 MiB on (the AWS CLI defaults): a typical 3.6 MB object is a single PUT. */
    public static final UploadSettings DEFAULT = new UploadSettings(8L << 20, 8L << 20);

    public UploadSettings {
        if (partSize < MIN_PART_SIZE) {
            throw new IllegalArgumentException("partSize " + partSize + " is below the S3 minimum " + MIN_PART_SIZE);
        }
        if (multipartThreshold < partSize) {
            throw new IllegalArgumentException("multipartThreshold " + multipartThreshold + " is below partSize "
                    + partSize);
        }
    }

    /** True when a file of {@code size} bytes is uploaded in parts. */
    public boolean multipart(long size) {
        return size >= multipartThreshold;
    }

    /** Number of parts for a file of {@code size} bytes (1 for a single PUT). */
    public int parts(long size) {
        if (!multipart(size)) {
            return 1;
        }
        long n = (size + partSize - 1) / partSize;
        if (n > MAX_PARTS) {
            throw new IllegalArgumentException(size + " bytes need " + n + " parts of " + partSize
                    + " bytes, more than the S3 maximum of " + MAX_PARTS);
        }
        return (int) n;
    }
}
