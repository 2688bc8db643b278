package org.eventindex.kudu;

/**
 * Outcome of {@link DatasetLoader#load}.
 *
 * @param events        events in the file
 * @param uniqueEvents  rows in EVENTS for the dataset (first occurrence of each event number)
 * @param duplicates    rows in DUPLICATEDEVENTS for the dataset (later occurrences)
 * @param millis        wall time of this call
 * @param alreadyLoaded true when the dataset was already LOADED with the same load id and nothing was written; the
 *                      counts are then the stored ones
 */
public record LoadResult(long events, long uniqueEvents, long duplicates, long millis, boolean alreadyLoaded) {
}
