package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * One object a consumer must read for a dataset, and which of the input files (GUIDs) it holds are to be taken
 * from it. Events of other GUIDs in the same object are skipped (another object was selected for them).
 *
 * @param url            {@code s3://host:port/bucket/key}
 * @param size           object size in bytes as the producer reported it
 * @param usize          the object's uncompressed (SPB) size as the producer reported it; 0 when not known (a
 *                       signal from before this field): the consumer refuses an object that inflates to more
 * @param guids          the selected GUIDs to take from this object, in the order the object holds them
 * @param expectedEvents sum of the producer-reported event counts of those GUIDs
 * @param files          per selected GUID, in the order of {@code guids}, the producer's count and run ranges; null
 *                       in signals of supervisors before it (the consumer then checks only {@code expectedEvents})
 */
public record SignalObject(
        @JsonProperty("url") String url,
        @JsonProperty("size") long size,
        @JsonProperty("usize") long usize,
        @JsonProperty("guids") List<String> guids,
        @JsonProperty("expectedEvents") long expectedEvents,
        @JsonProperty("files") List<SignalFile> files) {

    @JsonCreator
    public SignalObject {
    }

    /** An object without the per-file detail. */
    public SignalObject(String url, long size, long usize, List<String> guids, long expectedEvents) {
        this(url, size, usize, guids, expectedEvents, null);
    }

    /** An object whose uncompressed size is not known. */
    public SignalObject(String url, long size, List<String> guids, long expectedEvents) {
        this(url, size, 0, guids, expectedEvents);
    }
}
