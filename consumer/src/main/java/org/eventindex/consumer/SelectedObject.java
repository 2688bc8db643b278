package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;

import java.util.Objects;
import java.util.Set;

/**
 * One object of a validated signal and what to take from it.
 *
 * @param index          position in the signal (the consolidated file's order)
 * @param guids          the GUIDs whose events are taken; any others in the object are skipped
 * @param expectedEvents events the supervisor expects from those GUIDs
 * @param usize          the uncompressed size its producer declared; 0 when the signal does not say
 */
public record SelectedObject(int index, S3ObjectUrl url, Set<String> guids, long expectedEvents, long usize) {
    public SelectedObject {
        Objects.requireNonNull(url, "url is null");
        guids = Set.copyOf(Objects.requireNonNull(guids, "guids is null"));
    }

    /** An object whose uncompressed size is not known. */
    public SelectedObject(int index, S3ObjectUrl url, Set<String> guids, long expectedEvents) {
        this(index, url, guids, expectedEvents, 0);
    }
}
