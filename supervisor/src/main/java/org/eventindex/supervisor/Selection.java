package org.eventindex.supervisor;

import org.eventindex.message.SignalObject;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of {@link DatasetSelection#select}: which object each input file is taken from.
 *
 * @param expectedFiles   files in the manifest, or -1 without a manifest
 * @param chosen          GUID -> URL of the object it is taken from (manifest order, else first-claim order)
 * @param missingGuids    manifest GUIDs without a valid candidate yet
 * @param invalidClaims   claims refused because their event count is not the manifest's
 * @param unexpectedGuids GUIDs claimed by objects but not in the manifest (never consumed), sorted
 * @param objects         objects to read, sorted by URL, each with its chosen GUIDs in the object's file order and,
 *                        in the same order, the winning claim on each ({@code files}: count and run ranges)
 * @param unusedObjects   URLs of objects that won no GUID: never signalled, never read (journal order)
 * @param expectedEvents  sum of the chosen claims' event counts
 * @param conflicts       files without a catalogue count whose valid claims disagree on the event count
 */
record Selection(int expectedFiles, Map<String, String> chosen, List<String> missingGuids,
                 List<InvalidClaim> invalidClaims, List<String> unexpectedGuids, List<SignalObject> objects,
                 List<String> unusedObjects, long expectedEvents, List<Conflict> conflicts) {

    Selection {
        chosen = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(chosen, "chosen is null")));
        missingGuids = List.copyOf(missingGuids);
        invalidClaims = List.copyOf(invalidClaims);
        unexpectedGuids = List.copyOf(unexpectedGuids);
        objects = List.copyOf(objects);
        unusedObjects = List.copyOf(unusedObjects);
        conflicts = List.copyOf(conflicts);
    }

    /** A manifest exists, every file in it has a valid candidate and no attempts disagree. */
    boolean complete() {
        return expectedFiles > 0 && missingGuids.isEmpty() && conflicts.isEmpty();
    }

    /** Attempts disagree and nothing can arbitrate: an operator must decide. */
    boolean held() {
        return !conflicts.isEmpty();
    }

    /** Files that have a valid candidate (with a manifest: manifest files only). */
    int filesWithCandidate() {
        return chosen.size();
    }
}
