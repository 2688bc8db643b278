package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Map;

/**
 * Statistics of one input file (identified by its GUID) inside one producer object, as the experiment's producer
 * sends them in the {@code guids} list of its control message.
 *
 * @param runevtRanges per run number (as a decimal string) the smallest and largest event number seen, unsigned
 *                     (uint64, see {@link EventRange})
 */
public record GuidInfo(
        @JsonProperty("guid") String guid,
        @JsonProperty("fileno") int fileno,
        @JsonProperty("nevents") long nevents,
        @JsonProperty("nuevents") long nuevents,
        @JsonProperty("fileStartProcTime") long fileStartProcTime,
        @JsonProperty("fileEndProcTime") long fileEndProcTime,
        @JsonProperty("AMITag") String amiTag,
        @JsonProperty("trigStream") String trigStream,
        @JsonProperty("projName") String projName,
        @JsonProperty("runevtRanges") Map<String, EventRange> runevtRanges) {
}
