package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.eventindex.names.PoolToken;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Fills an EVENTS or DUPLICATEDEVENTS row from one event ({@link EventRecord}). Column positions are resolved once
 * per table; strings go to Kudu as the UTF-8 bytes read from the file. The coded mask text goes only to a table
 * created before decision 0037 (it has {@link KuduSchemas#L1TRIGMASK} / {@link KuduSchemas#EFTRIGMASK}).
 * <p>
 * References: the first eitoken is the event's own file ({@code db}/{@code tk}); every token whose name is
 * {@code StreamRAW}, {@code StreamESD} or {@code StreamAOD} also fills that stage's {@code db*}/{@code tk*} (so the
 * own token of an AOD dataset fills {@code dbaod} too). {@code db*} is the GUID from the token's {@code [DB=...]}.
 * An event without tokens gets its file's GUID (from BeginGUID) as {@code db} and no {@code tk}.
 * Prescale and menu keys missing on the event are taken from the file's TriggerMenu, if any.
 */
final class EventRowMapper {
    private static final byte[] STREAM_RAW = "StreamRAW".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STREAM_ESD = "StreamESD".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STREAM_AOD = "StreamAOD".getBytes(StandardCharsets.US_ASCII);
    private final int dspid;
    private final int rgid;
    private final int hltpsk;
    private final int l1psk;
    private final int smk;
    private final int lumiblock;
    private final int bunchid;
    private final int eventtime;
    private final int eventtimes;
    private final int lvlid;
    private final int l1mask;
    private final int efmask;
    private final int db;
    private final int tk;
    private final int dbRaw;
    private final int tkRaw;
    private final int dbEsd;
    private final int tkEsd;
    private final int dbAod;
    private final int tkAod;
    private final int runnumber;
    private final int eventnumber;
    private final int[] l1Words = new int[KuduSchemas.L1_WORDS];
    private final int[] hltWords = new int[KuduSchemas.HLT_WORDS];

    // Token prefix ("[DB=<GUID>") -> the GUID as UTF-8. A token is parsed (and so validated) when its prefix is
    // first seen; rows sorted by (run, event) interleave the files, so a map rather than the last value. Bounded:
    // cleared when full.
    private static final int CACHE_MAX = 16_384;
    private final Map<ByteBuffer, byte[]> dbCache = new HashMap<>();

    EventRowMapper(Schema schema) {
        dspid = schema.getColumnIndex(KuduSchemas.DSPID);
        eventnumber = schema.getColumnIndex(KuduSchemas.EVENTNUMBER);
        rgid = schema.getColumnIndex(KuduSchemas.RGID);
        hltpsk = schema.getColumnIndex(KuduSchemas.HLTPSK);
        l1psk = schema.getColumnIndex(KuduSchemas.L1PSK);
        smk = schema.getColumnIndex(KuduSchemas.SMK);
        lumiblock = schema.getColumnIndex(KuduSchemas.LUMIBLOCKNR);
        bunchid = schema.getColumnIndex(KuduSchemas.BUNCHID);
        eventtime = schema.getColumnIndex(KuduSchemas.EVENTTIME);
        eventtimes = schema.getColumnIndex(KuduSchemas.EVENTTIMES);
        lvlid = schema.getColumnIndex(KuduSchemas.LVLID);
        // only in tables created before decision 0037: filled while the table has them
        l1mask = schema.hasColumn(KuduSchemas.L1TRIGMASK) ? schema.getColumnIndex(KuduSchemas.L1TRIGMASK) : -1;
        efmask = schema.hasColumn(KuduSchemas.EFTRIGMASK) ? schema.getColumnIndex(KuduSchemas.EFTRIGMASK) : -1;
        db = schema.getColumnIndex(KuduSchemas.DB);
        tk = schema.getColumnIndex(KuduSchemas.TK);
        dbRaw = schema.getColumnIndex(KuduSchemas.DBRAW);
        tkRaw = schema.getColumnIndex(KuduSchemas.TKRAW);
        dbEsd = schema.getColumnIndex(KuduSchemas.DBESD);
        tkEsd = schema.getColumnIndex(KuduSchemas.TKESD);
        dbAod = schema.getColumnIndex(KuduSchemas.DBAOD);
        tkAod = schema.getColumnIndex(KuduSchemas.TKAOD);
        runnumber = schema.getColumnIndex(KuduSchemas.RUNNUMBER);
        for (int w = 0; w < l1Words.length; w++) {
            l1Words[w] = schema.getColumnIndex(KuduSchemas.l1Word(w));
        }
        for (int w = 0; w < hltWords.length; w++) {
            hltWords[w] = schema.getColumnIndex(KuduSchemas.hltWord(w));
        }
    }

    /**
     * Sets the trigger mask words of {@code t}: its non-zero words, and word 0 of a present mask with no bit set as 0
     * (zero words stay NULL), so that an empty mask reads back apart from an absent one ({@link TriggerMaskColumns}).
     */
    void fillTriggerWords(RowValues row, TriggerWords t) {
        for (int i = 0; i < t.index.length; i++) {
            int w = t.index[i];
            row.addLong(w < l1Words.length ? l1Words[w] : hltWords[w - l1Words.length], t.words[i]);
        }
    }

    /** Whether the table has the coded mask text columns (created before decision 0037), which the row then fills. */
    boolean storesMaskText() {
        return l1mask >= 0 || efmask >= 0;
    }

    /**
     * @param e    the event and the GUID of its file ({@link EventRecord#guid}, from BeginGUID)
     * @param menu the file's TriggerMenu, or null
     * @throws IllegalArgumentException when a token is malformed (the message names the token)
     */
    void fill(RowValues row, int dspidValue, int rgidValue, EventRecord e, TriggerMenu_p1 menu) {
        row.addInt(dspid, dspidValue);
        row.addLong(eventnumber, e.eventNumber);
        row.addInt(rgid, rgidValue);
        row.addInt(runnumber, e.runNumber);
        row.addInt(lumiblock, e.lumiBlock);
        row.addInt(bunchid, e.bcid);
        row.addInt(eventtime, e.timeStamp);
        row.addInt(eventtimes, e.timeStampNSOffset);
        if (e.hasExtendedLevel1ID) {
            row.addLong(lvlid, Integer.toUnsignedLong(e.extendedLevel1ID));
        }
        setKey(row, smk, e.hasSmk, e.smk, menu == null ? null : menu.getSMK());
        setKey(row, hltpsk, e.hasHltpsk, e.hltpsk, menu == null ? null : menu.getHLTPSK());
        setKey(row, l1psk, e.hasL1psk, e.l1psk, menu == null ? null : menu.getL1PSK());
        // byte arrays are handed over as they are (not copied): EventRecord never writes an array it gave out
        if (l1mask >= 0 && e.l1PassedTrigMask != null) {
            row.addStringUtf8(l1mask, e.l1PassedTrigMask);
        }
        if (efmask >= 0 && e.efPassedTrigMask != null) {
            row.addStringUtf8(efmask, e.efPassedTrigMask);
        }
        if (e.tokenCount == 0) {
            row.addStringUtf8(db, e.guidBytes);
            return;
        }
        for (int i = 0; i < e.tokenCount; i++) {
            byte[] token = e.tokens[i];
            byte[] guid = dbOf(token);
            if (i == 0) {
                row.addStringUtf8(db, guid);
                row.addStringUtf8(tk, token);
            }
            byte[] name = e.tokenNames[i];
            if (Arrays.equals(name, STREAM_RAW)) {
                setRef(row, dbRaw, tkRaw, guid, token);
            } else if (Arrays.equals(name, STREAM_ESD)) {
                setRef(row, dbEsd, tkEsd, guid, token);
            } else if (Arrays.equals(name, STREAM_AOD)) {
                setRef(row, dbAod, tkAod, guid, token);
            }
            // Other streams (DAOD, HITS...) are only recorded as the own file.
        }
    }

    /**
     * Parses the tokens of {@code e} as {@link #fill} does, filling nothing: a row held before it is filled is
     * refused when it is decided (the GUIDs found are cached for its fill).
     *
     * @throws IllegalArgumentException when a token is malformed (the message names the token)
     */
    void checkReferences(EventRecord e) {
        for (int i = 0; i < e.tokenCount; i++) {
            dbOf(e.tokens[i]);
        }
    }

    private static void setKey(RowValues row, int column, boolean onEvent, int eventValue, Integer menuValue) {
        if (onEvent) {
            row.addInt(column, eventValue);
        } else if (menuValue != null) {
            row.addInt(column, menuValue);
        }
    }

    private static void setRef(RowValues row, int dbColumn, int tkColumn, byte[] guid, byte[] token) {
        // The first token of a stage wins if a file lists the same stage twice.
        if (!row.isSet(dbColumn)) {
            row.addStringUtf8(dbColumn, guid);
            row.addStringUtf8(tkColumn, token);
        }
    }

    private byte[] dbOf(byte[] token) {
        int end = 0;
        while (end < token.length && token[end] != ']') {
            end++;
        }
        byte[] db = dbCache.get(ByteBuffer.wrap(token, 0, end));
        if (db == null) {
            db = PoolToken.parse(new String(token, StandardCharsets.UTF_8)).db().getBytes(StandardCharsets.UTF_8);
            if (dbCache.size() >= CACHE_MAX) {
                dbCache.clear();
            }
            dbCache.put(ByteBuffer.wrap(Arrays.copyOf(token, end)), db);
        }
        return db;
    }
}
