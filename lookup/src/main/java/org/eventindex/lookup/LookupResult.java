package org.eventindex.lookup;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The answer for one event: its matches (empty when not found), or the reason the lookup failed.
 *
 * @param error       null unless the lookup itself failed (Kudu unreachable, timeout); then {@code matches} is empty
 * @param explanation why a missed event was not found, when asked for ({@link EventLookup#explained}); else null
 */
public record LookupResult(EventKey key, List<LookupMatch> matches, String error, MissExplanation explanation) {
    public LookupResult {
        requireNonNull(key, "key is null");
        matches = List.copyOf(matches);
    }

    public LookupResult(EventKey key, List<LookupMatch> matches, String error) {
        this(key, matches, error, null);
    }

    public boolean found() {
        return !matches.isEmpty();
    }

    public boolean failed() {
        return error != null;
    }

    /** A miss: neither found nor failed. */
    public boolean missed() {
        return !found() && !failed();
    }

    LookupResult explainedBy(MissExplanation why) {
        return new LookupResult(key, matches, error, why);
    }
}
