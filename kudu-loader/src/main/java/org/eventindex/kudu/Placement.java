package org.eventindex.kudu;

/**
 * Where the event rows of one dataset sit: its dataset id (first key column of EVENTS, MCEVENTS and
 * DUPLICATEDEVENTS) and its epoch range ({@code rgid}).
 */
record Placement(int dspid, int rgid) {
}
