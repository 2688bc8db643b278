package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Map;

/**
 * What the producer reported of one input file that a signal selects from an object: the consumer checks the object's
 * content against it on its first read, before anything is written (a count or a run range that differs means the
 * object is not the one the message described).
 *
 * @param guid         the input file
 * @param nevents      its events, as the producer counted them
 * @param runevtRanges per run (decimal string) its smallest and largest event number, unsigned; null or empty when
 *                     the producer sent none (then only the count is checked)
 */
public record SignalFile(
        @JsonProperty("guid") String guid,
        @JsonProperty("nevents") long nevents,
        @JsonProperty("runevtRanges") Map<String, EventRange> runevtRanges) {

    @JsonCreator
    public SignalFile {
    }

    /** The file as the producer's message reported it. */
    public static SignalFile of(GuidInfo claim) {
        return new SignalFile(claim.guid(), claim.nevents(), claim.runevtRanges());
    }
}
