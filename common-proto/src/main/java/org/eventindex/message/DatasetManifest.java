package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * The files a dataset must contain, registered with the supervisor on its control queue (until the Rucio catalogue
 * is wired in, this is how the supervisor knows when a dataset is complete).
 */
public record DatasetManifest(
        @JsonProperty("type") String type,
        @JsonProperty("dataset") String dataset,
        @JsonProperty("files") List<ManifestFile> files) {

    public static final String TYPE = "manifest";
    /**
     * The format version of manifests this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }


    /** One expected input file; {@code nevents} is the catalogue's event count, or -1 when unknown. */
    public record ManifestFile(@JsonProperty("guid") String guid, @JsonProperty("nevents") long nevents) {
    }
}
