package org.eventindex.names;

/**
 * A POOL token {@code [DB=<GUID>][CNT=<container>][CLID=<GUID>][TECH=%08X][OID=%016llX-%016llX]}: where one event
 * sits inside one file.
 */
public record PoolToken(String db, String container, String clid, int technology, long oid1, long oid2) {

    /** @throws IllegalArgumentException naming the token and the part that is malformed */
    public static PoolToken parse(String token) {
        throw new UnsupportedOperationException("TODO");
    }

    /** The canonical text form (upper-case hex, fixed widths). {@code parse(t.format()).equals(t)}. */
    public String format() {
        throw new UnsupportedOperationException("TODO");
    }
}
