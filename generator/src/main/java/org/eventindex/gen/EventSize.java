package org.eventindex.gen;

/**
 * How heavy the generated events are, which is how many trigger items fire and how varied their combinations are
 * (the rest of an event is the same in both).
 */
public enum EventSize {
    /**
     * Seed 000's sizes: about 36 bytes per event in the SPB file (its mean object, 3.6 MB, for its typical
     * 100,000-event job) and about 10 times that once inflated (its "compression factor 10"). Events fire a few
     * trigger combinations again and again, as events of one stream do, so the gzip window finds most masks.
     */
    SEED,
    /**
     * The seed's largest jobs: its biggest object, 670 MB, held 30 million events (about 22 bytes per event). Events
     * as {@link #SEED} without the provenance tokens (the header's {@code provenanceRef} is false): only the own
     * stream's token, as a job indexing without provenance writes.
     */
    LARGE_JOB,
    /**
     * Today's heavier events: about 118 bytes per event, 6.5 times inflation; many more chains fire, in combinations
     * that rarely repeat (what this generator wrote before it matched the seed, and what the seed's single dataset,
     * 3.3 GB for 26.3 million indexed events, looks like).
     */
    HEAVY
}
