package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.eventindex.spb.Inflation;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;

/**
 * An SPB file validated and summarised in one streaming pass, with its digests over every byte of the file (so they
 * match the object that gets uploaded). Memory use does not depend on the file size.
 * <p>
 * The file is inflated on a thread of its own, a few 512 KiB chunks ahead of the thread that checks its messages in
 * place ({@link Inflation#AHEAD}): on two cores the validation then takes about the longer of the two rather than their sum
 * (decision 0071); the checks, and so what is accepted or refused and why, are the same.
 * <p>
 * The digests (the SHA-256, and a CRC-32C of each range the upload sends) run on a thread of their own over a second
 * read of the file, beside the threads that inflate and validate it: on two cores they cost the validation little
 * time, where in the same pass they added about a fifth to it (decision 0066); the ETag's MD5s are computed beside the
 * upload ({@link ContentDigests.Result#etagOf}, decision 0081). The file is the finished output of the job's indexing
 * step; a file that changes under the two reads is caught here when its sizes differ, and by the ETag's read and the
 * store's ETag after the upload otherwise.
 */
public record ScannedFile(Path path, SpbSummary summary, ContentDigests.Result digests) {

    public ScannedFile {
        requireNonNull(path, "path is null");
        requireNonNull(summary, "summary is null");
        requireNonNull(digests, "digests is null");
    }

    /** Bytes of the file. */
    public long size() {
        return digests.size();
    }

    /** Hex SHA-256 of the file. */
    public String sha256() {
        return digests.sha256();
    }

    /**
     * @param upload how the file will be uploaded (the ranges of its digests)
     * @throws org.eventindex.spb.SpbFormatException when the file is not a valid SPB file
     * @throws IOException when it cannot be read, or changed while it was read
     */
    public static ScannedFile scan(Path path, SpbLimits limits, UploadSettings upload) throws IOException {
        requireNonNull(path, "path is null");
        requireNonNull(limits, "limits is null");
        requireNonNull(upload, "upload is null");
        long size = Files.size(path);
        ContentDigests digests = new ContentDigests(upload, size);
        FutureTask<ContentDigests.Result> digesting = new FutureTask<>(() -> digest(path, digests));
        Thread digester = new Thread(digesting, "digests of " + path.getFileName());
        digester.setDaemon(true);
        digester.start();
        SpbSummary summary;
        try {
            summary = SpbSummary.scan(path, limits, Inflation.AHEAD);
        } catch (IOException | RuntimeException e) {
            digesting.cancel(true);
            throw e;
        }
        ContentDigests.Result result = await(digesting, path);
        if (summary.compressedBytes() > result.size() || result.size() != size) {
            throw new IOException(path + " changed while it was read: " + size + " bytes before, "
                    + summary.compressedBytes() + " validated, " + result.size()
                    + " digested; run the producer again on the finished file");
        }
        return new ScannedFile(path, summary, result);
    }

    private static ContentDigests.Result digest(Path path, ContentDigests digests) throws IOException {
        ContentDigests.readAll(path, "the digests", digests::update);
        try {
            return digests.finish();
        } catch (IllegalStateException e) {
            throw new IOException(path + " changed while it was read: " + e.getMessage(), e);
        }
    }

    private static ContentDigests.Result await(FutureTask<ContentDigests.Result> digesting, Path path)
            throws IOException {
        try {
            return digesting.get();
        } catch (InterruptedException e) {
            digesting.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while digesting " + path);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw new IOException("cannot digest " + path + ": " + io.getMessage(), io);
            }
            throw new IllegalStateException("digesting " + path + " failed: " + e.getCause(), e.getCause());
        }
    }
}
