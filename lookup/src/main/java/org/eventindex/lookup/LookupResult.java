package org.eventindex.lookup;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The answer for one event: its matches (empty when not found), or the reason the lookup failed.
 *
 * @param error null unless the lookup itself failed (Kudu unreachable, timeout); then {@code matches} is empty
 */
public record LookupResult(EventKey key, List<LookupMatch> matches, String error) {
    public LookupResult {
        requireNonNull(key, "key is null");
        matches = List.copyOf(matches);
    }

    public boolean found() {
        return !matches.isEmpty();
    }

    public boolean failed() {
        return error != null;
    }
}
