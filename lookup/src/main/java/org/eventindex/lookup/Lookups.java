package org.eventindex.lookup;

import java.util.List;

/** What the HTTP server needs of {@link EventLookup}: a batch lookup. */
@FunctionalInterface
public interface Lookups {
    /** One result per key, in order. */
    List<LookupResult> lookup(List<EventKey> keys, LookupFilter filter);
}
