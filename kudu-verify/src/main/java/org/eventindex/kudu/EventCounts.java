package org.eventindex.kudu;

/**
 * Rows of one dataset (dspid) in one epoch.
 *
 * @param events     rows in EVENTS
 * @param duplicates rows in DUPLICATEDEVENTS
 */
public record EventCounts(long events, long duplicates) {
}
