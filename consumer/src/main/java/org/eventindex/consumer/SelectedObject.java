package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalFile;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One object of a validated signal and what to take from it.
 *
 * @param index          position in the signal (the consolidated file's order)
 * @param guids          the GUIDs whose events are taken; any others in the object are skipped
 * @param expectedEvents events the supervisor expects from those GUIDs
 * @param usize          the uncompressed size its producer declared; 0 when the signal does not say
 * @param files          per GUID, what its producer reported of it (count and run ranges), which its content must
 *                       match; empty when the signal does not carry it (a supervisor before it)
 */
public record SelectedObject(int index, S3ObjectUrl url, Set<String> guids, long expectedEvents, long usize,
                             Map<String, SignalFile> files) {
    public SelectedObject {
        Objects.requireNonNull(url, "url is null");
        guids = Set.copyOf(Objects.requireNonNull(guids, "guids is null"));
        files = Map.copyOf(Objects.requireNonNull(files, "files is null"));
    }

    /** An object without the producer's per-file claims. */
    public SelectedObject(int index, S3ObjectUrl url, Set<String> guids, long expectedEvents, long usize) {
        this(index, url, guids, expectedEvents, usize, Map.of());
    }

    /** An object whose uncompressed size is not known. */
    public SelectedObject(int index, S3ObjectUrl url, Set<String> guids, long expectedEvents) {
        this(index, url, guids, expectedEvents, 0);
    }
}
