package org.eventindex.supervisor;

import org.eventindex.message.GuidInfo;
import org.eventindex.message.ProducerInfo;

import java.util.List;
import java.util.Objects;

/**
 * One stored object that claims some of a dataset's input files, as a producer reported it.
 *
 * @param url       the object's {@code s3://} URL, unique within the dataset
 * @param size      object size in bytes
 * @param usize     the object's uncompressed size as its producer reported it ({@code usize}); 0 when not known
 * @param seq       journal sequence number of the report: the order in which candidates compete
 * @param guids     the input files the object holds, with the producer's event counts
 * @param messageId the producer message that reported it; null in checkpoints written before it was kept
 * @param jobId     the producer's job id ({@code jobID}), shown by the console; null when the producer sent none or
 *                  in checkpoints written before it was kept
 */
record Candidate(String url, long size, long usize, long seq, List<GuidInfo> guids, String messageId, String jobId) {
    Candidate {
        Objects.requireNonNull(url, "url is null");
        guids = List.copyOf(Objects.requireNonNull(guids, "guids is null"));
    }

    /** A candidate without a job id. */
    Candidate(String url, long size, long usize, long seq, List<GuidInfo> guids, String messageId) {
        this(url, size, usize, seq, guids, messageId, null);
    }

    /** Whether {@code info} reports this very object: same dataset's URL, size and input files. */
    boolean sameObject(ProducerInfo info) {
        return url.equals(info.url()) && size == info.size() && guids.equals(info.guids());
    }
}
