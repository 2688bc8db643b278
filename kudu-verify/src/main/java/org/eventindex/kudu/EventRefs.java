package org.eventindex.kudu;

/**
 * Where one event sits: the file GUID and POOL token of the event's own file ({@code db}/{@code tk}) and of its
 * RAW, ESD and AOD ancestors where the index recorded them (null otherwise).
 */
public record EventRefs(int runNumber, long eventNumber, String db, String tk, String dbRaw, String tkRaw,
                        String dbEsd, String tkEsd, String dbAod, String tkAod) {
}
