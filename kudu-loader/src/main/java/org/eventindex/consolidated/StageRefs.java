package org.eventindex.consolidated;

import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;

/**
 * The per-stage references of one event, derived from its tokens: the first token is the event's own file; tokens
 * named {@code StreamRAW}, {@code StreamESD}, {@code StreamAOD} fill that stage (the first one of a stage wins). The
 * GUID of a reference is the token's {@code [DB=...]}. An event without tokens has its file GUID as own GUID and no
 * own token. Not thread-safe (caches the last token's parse).
 */
public final class StageRefs {
    public String dbRaw;
    public String tkRaw;
    public String dbEsd;
    public String tkEsd;
    public String dbAod;
    public String tkAod;
    public String db;
    public String tk;
    // One cache slot per token position: consecutive events of a file share their own, ESD and RAW GUIDs.
    private final String[] lastPrefix = new String[4];
    private final String[] lastDb = new String[4];

    /**
     * @throws IllegalArgumentException naming the token when one is malformed
     */
    public StageRefs of(EIEvent_p1 e, String fileGuid) {
        dbRaw = tkRaw = dbEsd = tkEsd = dbAod = tkAod = db = tk = null;
        if (e.getEitokenCount() == 0) {
            db = fileGuid;
            return this;
        }
        for (int i = 0; i < e.getEitokenCount(); i++) {
            EItoken_p1 t = e.getEitoken(i);
            String guid = dbOf(t.getToken(), Math.min(i, lastPrefix.length - 1));
            if (i == 0) {
                db = guid;
                tk = t.getToken();
            }
            switch (t.getName()) {
                case "StreamRAW" -> {
                    if (dbRaw == null) {
                        dbRaw = guid;
                        tkRaw = t.getToken();
                    }
                }
                case "StreamESD" -> {
                    if (dbEsd == null) {
                        dbEsd = guid;
                        tkEsd = t.getToken();
                    }
                }
                case "StreamAOD" -> {
                    if (dbAod == null) {
                        dbAod = guid;
                        tkAod = t.getToken();
                    }
                }
                default -> {
                    // other streams (DAOD, HITS...) are recorded only as the own file
                }
            }
        }
        return this;
    }

    private String dbOf(String token, int slot) {
        int end = token.indexOf(']');
        String prefix = end > 0 ? token.substring(0, end) : token;
        if (!prefix.equals(lastPrefix[slot])) {
            // the first sight of a GUID validates the whole token; later tokens of the same file share it
            lastDb[slot] = PoolToken.parse(token).db();
            lastPrefix[slot] = prefix;
        }
        return lastDb[slot];
    }
}
