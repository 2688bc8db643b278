package org.eventindex.supervisor;

/**
 * An object's claim on an input file that cannot be used because its event count is not the manifest's
 * (typically a job that failed midway and was retried).
 *
 * @param url            the object
 * @param guid           the input file
 * @param expectedEvents the manifest's count for the file
 * @param claimedEvents  the producer's count for the file in this object
 */
public record InvalidClaim(String url, String guid, long expectedEvents, long claimedEvents) {
}
