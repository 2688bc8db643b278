package org.eventindex.consolidated;

import com.google.protobuf.ByteString;
import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;

import java.util.HashMap;

/**
 * The per-stage references of one event, derived from its tokens: the first token is the event's own file; tokens
 * named {@code StreamRAW}, {@code StreamESD}, {@code StreamAOD} fill that stage (the first one of a stage wins). The
 * GUID of a reference is the token's {@code [DB=...]}. An event without tokens has its file GUID as own GUID and no
 * own token. Not thread-safe (caches the GUIDs of the tokens seen).
 */
public final class StageRefs {
    private static final ByteString RAW = ByteString.copyFromUtf8("StreamRAW");
    private static final ByteString ESD = ByteString.copyFromUtf8("StreamESD");
    private static final ByteString AOD = ByteString.copyFromUtf8("StreamAOD");

    public String dbRaw;
    /** Tokens as their UTF-8 bytes, as parsed (never decoded to String and encoded again). */
    public ByteString tkRaw;
    public String dbEsd;
    public ByteString tkEsd;
    public String dbAod;
    public ByteString tkAod;
    public String db;
    public ByteString tk;
    // Token prefix ("[DB=...") -> GUID. Rows sorted by (run, event) interleave the events of every input file,
    // so a map (bounded: cleared when full) rather than the last value per position.
    private static final int CACHE_MAX = 16_384;
    private HashMap<ByteString, String> cache;

    /** A copy of the references (not of the cache), for handing to another thread. */
    public StageRefs copyRefs() {
        StageRefs c = new StageRefs();
        c.dbRaw = dbRaw;
        c.tkRaw = tkRaw;
        c.dbEsd = dbEsd;
        c.tkEsd = tkEsd;
        c.dbAod = dbAod;
        c.tkAod = tkAod;
        c.db = db;
        c.tk = tk;
        return c;
    }

    /**
     * @throws IllegalArgumentException naming the token when one is malformed
     */
    public StageRefs of(EIEvent_p1 e, String fileGuid) {
        dbRaw = dbEsd = dbAod = db = null;
        tkRaw = tkEsd = tkAod = tk = null;
        if (e.getEitokenCount() == 0) {
            db = fileGuid;
            return this;
        }
        for (int i = 0; i < e.getEitokenCount(); i++) {
            EItoken_p1 t = e.getEitoken(i);
            ByteString token = t.getTokenBytes();
            String guid = dbOf(token);
            if (i == 0) {
                db = guid;
                tk = token;
            }
            ByteString name = t.getNameBytes();
            if (name.equals(RAW)) {
                if (dbRaw == null) {
                    dbRaw = guid;
                    tkRaw = token;
                }
            } else if (name.equals(ESD)) {
                if (dbEsd == null) {
                    dbEsd = guid;
                    tkEsd = token;
                }
            } else if (name.equals(AOD)) {
                if (dbAod == null) {
                    dbAod = guid;
                    tkAod = token;
                }
            }
            // other streams (DAOD, HITS...) are recorded only as the own file
        }
        return this;
    }

    private String dbOf(ByteString token) {
        int n = token.size();
        int end = 0;
        while (end < n && token.byteAt(end) != ']') {
            end++;
        }
        ByteString prefix = end > 0 && end < n ? token.substring(0, end) : token;
        if (cache == null) {
            cache = new HashMap<>();
        }
        String db = cache.get(prefix);
        if (db == null) {
            // the first sight of a GUID validates the whole token; later tokens of the same file share it
            db = PoolToken.parse(token.toStringUtf8()).db();
            if (cache.size() >= CACHE_MAX) {
                cache.clear();
            }
            cache.put(ByteString.copyFrom(prefix.toByteArray()), db);
        }
        return db;
    }
}
