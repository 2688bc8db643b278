package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.apache.kudu.client.PartialRow;
import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

/**
 * Fills an EVENTS or DUPLICATEDEVENTS row from one {@code EIEvent_p1}. Column positions are resolved once per table.
 * <p>
 * References: the first eitoken is the event's own file ({@code db}/{@code tk}); every token whose name is
 * {@code StreamRAW}, {@code StreamESD} or {@code StreamAOD} also fills that stage's {@code db*}/{@code tk*} (so the
 * own token of an AOD dataset fills {@code dbaod} too). {@code db*} is the GUID from the token's {@code [DB=...]}.
 * An event without tokens gets its file's GUID (from BeginGUID) as {@code db} and no {@code tk}.
 * Prescale and menu keys missing on the event are taken from the file's TriggerMenu, if any.
 */
final class EventRowMapper {
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

    // Tokens were validated by the producer; parsing them again only when the [DB=...] part changes keeps the
    // per-event cost low for the long runs of events that come from one file.
    // one slot per token position: own, ESD and RAW tokens alternate within an event
    private final String[] lastTokenPrefix = new String[4];
    private final String[] lastDb = new String[4];

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
        l1mask = schema.getColumnIndex(KuduSchemas.L1TRIGMASK);
        efmask = schema.getColumnIndex(KuduSchemas.EFTRIGMASK);
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

    /** Sets the non-zero trigger mask words of {@code bits} (zero words stay NULL). */
    void fillTriggerWords(PartialRow row, TriggerBits bits) {
        for (int w = 0; w < l1Words.length; w++) {
            if (bits.l1[w] != 0) {
                row.addLong(l1Words[w], bits.l1[w]);
            }
        }
        for (int w = 0; w < hltWords.length; w++) {
            if (bits.hlt[w] != 0) {
                row.addLong(hltWords[w], bits.hlt[w]);
            }
        }
    }

    /**
     * @param fileGuid the BeginGUID guid of the file the event was indexed from
     * @param menu     the file's TriggerMenu, or null
     * @throws IllegalArgumentException when a token is malformed (the message names the token)
     */
    void fill(PartialRow row, int dspidValue, int rgidValue, EIEvent_p1 e, String fileGuid, TriggerMenu_p1 menu) {
        row.addInt(dspid, dspidValue);
        row.addLong(eventnumber, e.getEventNumber());
        row.addInt(rgid, rgidValue);
        row.addInt(runnumber, e.getRunNumber());
        row.addInt(lumiblock, e.getLumiBlock());
        row.addInt(bunchid, e.getBcid());
        row.addInt(eventtime, e.getTimeStamp());
        row.addInt(eventtimes, e.getTimeStampNSOffset());
        if (e.hasExtendedLevel1ID()) {
            row.addLong(lvlid, Integer.toUnsignedLong(e.getExtendedLevel1ID()));
        }
        setKey(row, smk, e.hasSMK(), e.getSMK(), menu == null ? null : menu.getSMK());
        setKey(row, hltpsk, e.hasHLTPSK(), e.getHLTPSK(), menu == null ? null : menu.getHLTPSK());
        setKey(row, l1psk, e.hasL1PSK(), e.getL1PSK(), menu == null ? null : menu.getL1PSK());
        if (e.hasL1PassedTrigMask()) {
            row.addString(l1mask, e.getL1PassedTrigMask());
        }
        if (e.hasEFPassedTrigMask()) {
            row.addString(efmask, e.getEFPassedTrigMask());
        }
        if (e.getEitokenCount() == 0) {
            row.addString(db, fileGuid);
            return;
        }
        for (int i = 0; i < e.getEitokenCount(); i++) {
            EItoken_p1 token = e.getEitoken(i);
            String guid = dbOf(token.getToken(), Math.min(i, lastDb.length - 1));
            if (i == 0) {
                row.addString(db, guid);
                row.addString(tk, token.getToken());
            }
            switch (token.getName()) {
                case "StreamRAW" -> setRef(row, dbRaw, tkRaw, guid, token.getToken());
                case "StreamESD" -> setRef(row, dbEsd, tkEsd, guid, token.getToken());
                case "StreamAOD" -> setRef(row, dbAod, tkAod, guid, token.getToken());
                default -> {
                    // Other streams (DAOD, HITS...) are only recorded as the own file.
                }
            }
        }
    }

    private static void setKey(PartialRow row, int column, boolean onEvent, int eventValue, Integer menuValue) {
        if (onEvent) {
            row.addInt(column, eventValue);
        } else if (menuValue != null) {
            row.addInt(column, menuValue);
        }
    }

    private static void setRef(PartialRow row, int dbColumn, int tkColumn, String guid, String token) {
        // The first token of a stage wins if a file lists the same stage twice.
        if (!row.isSet(dbColumn)) {
            row.addString(dbColumn, guid);
            row.addString(tkColumn, token);
        }
    }

    private String dbOf(String token, int slot) {
        int end = token.indexOf(']');
        String prefix = end > 0 ? token.substring(0, end) : token;
        if (!prefix.equals(lastTokenPrefix[slot])) {
            lastDb[slot] = PoolToken.parse(token).db();
            lastTokenPrefix[slot] = prefix;
        }
        return lastDb[slot];
    }
}
