package org.eventindex.supervisor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Attempts that disagree on one input file: several objects claim the GUID with different event counts and the
 * catalogue gives no count to arbitrate. The dataset is held until an operator invalidates the wrong object(s) or a
 * catalogue count arrives.
 *
 * @param guid   the input file
 * @param claims object URL -> claimed event count, in the order the objects were reported
 */
public record Conflict(String guid, Map<String, Long> claims) {
    public Conflict {
        Objects.requireNonNull(guid, "guid is null");
        claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
    }

    /** One line for operators. */
    public String reason() {
        return "GUID " + guid + ": attempts disagree on the event count " + claims
                + " and the catalogue gives no count; invalidate the wrong object(s)";
    }
}
