package org.eventindex.deploy.differential;

import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import org.eventindex.gen.RandomCase;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.message.EventRange;
import org.eventindex.message.SignalFile;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.Printable;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a loaded dataset must hold, computed from a {@link RandomCase}'s model alone, with the project's public parsers
 * ({@link PoolToken#parse}, {@link TriggerMask#decodeL1Words}, {@link TriggerMask#decodeHltWords}) and the documented
 * rules (docs/formats.md, docs/kudu-loader.md), never by calling the consumer or the loader:
 * <ul>
 *   <li>the consolidated file's rows: every event with its file GUID, sorted by (run, event) unsigned, ties in signal
 *       order (one object: file order, then event order);</li>
 *   <li>the Kudu rows: the first occurrence of an event number in EVENTS (MCEVENTS for a simulation dataset), the
 *       later ones in DUPLICATEDEVENTS, each column as {@code EventRowMapper} defines it: keys from the event or else
 *       from its file's first TriggerMenu, {@code db}/{@code tk} from the first token (no token: the file GUID),
 *       {@code db*}/{@code tk*} from the first token named {@code StreamRAW}/{@code StreamESD}/{@code StreamAOD}, the
 *       mask words with zero words NULL and an all-zero present mask as word 0 = 0;</li>
 *   <li>TRIGGERCOUNT: per pair of fired ids (TAV item {@code i}, HLT physics chain {@code 512 + j}) of the first
 *       occurrences, the events where both fired;</li>
 *   <li>the producer's claims an experiment's sender makes of each file: its count and per run its smallest and largest
 *       event number.</li>
 * </ul>
 */
final class ExpectedDataset {
    /** The Kudu columns that name a stage's file and token. */
    private static final String[][] STAGES = {{"StreamRAW", KuduSchemas.DBRAW, KuduSchemas.TKRAW},
        {"StreamESD", KuduSchemas.DBESD, KuduSchemas.TKESD}, {"StreamAOD", KuduSchemas.DBAOD, KuduSchemas.TKAOD}};

    /**
     * One event as the consolidated file and the tables hold it.
     *
     * @param occurrence 1 for the first row of its event number (EVENTS), 2.. for the later ones (DUPLICATEDEVENTS)
     */
    record Row(EIEvent_p1 event, RandomCase.InputFile file, int occurrence) {
        String guid() {
            return file.guid();
        }
    }

    private static final Parser<EIEvent_p1> READER = DiscardUnknownFieldsParser.wrap(EIEvent_p1.parser());

    private final RandomCase rc;
    /** Each file's events as a reader of the bytes sees them. */
    private final Map<RandomCase.InputFile, List<EIEvent_p1>> parsed = new java.util.IdentityHashMap<>();
    private final DatasetName name;
    private final List<Row> rows = new ArrayList<>();
    private final Set<String> parserFindings = new java.util.LinkedHashSet<>();
    private long duplicates;
    private long uniqDupl;
    private Integer smk;

    ExpectedDataset(RandomCase rc) {
        this.rc = rc;
        this.name = DatasetName.parse(rc.dataset());
        List<Row> inOrder = new ArrayList<>();
        for (RandomCase.InputFile f : rc.files()) {
            List<EIEvent_p1> read = new ArrayList<>();
            for (EIEvent_p1 e : f.events()) {
                read.add(asRead(e));
            }
            parsed.put(f, read);
            for (EIEvent_p1 e : read) {
                inOrder.add(new Row(e, f, 0));
            }
        }
        // stable: ties keep the signal order
        inOrder.sort(Comparator.<Row>comparingLong(r -> Integer.toUnsignedLong(r.event().getRunNumber()))
                .thenComparing((a, b) -> Long.compareUnsigned(a.event().getEventNumber(),
                        b.event().getEventNumber())));
        Map<Long, Integer> seen = new java.util.HashMap<>();
        for (Row r : inOrder) {
            int occurrence = seen.merge(r.event().getEventNumber(), 1, Integer::sum);
            if (occurrence > 1) {
                duplicates++;
                if (occurrence == 2) {
                    uniqDupl++;
                }
            }
            rows.add(new Row(r.event(), r.file(), occurrence));
            if (smk == null) {
                TriggerMenu_p1 menu = r.file().firstMenu();
                smk = r.event().hasSMK() ? Integer.valueOf(r.event().getSMK()) : menu != null ? menu.getSMK() : null;
            }
        }
    }

    DatasetName name() {
        return name;
    }

    /** The rows of the consolidated file, in its order. */
    List<Row> rows() {
        return rows;
    }

    long events() {
        return rows.size();
    }

    long duplicates() {
        return duplicates;
    }

    long unique() {
        return rows.size() - duplicates;
    }

    long uniqDupl() {
        return uniqDupl;
    }

    /** The first super master key in file order (event's own, else its file's first menu's), or null. */
    Integer smk() {
        return smk;
    }

    /** Whether the rows belong in MCEVENTS: every event simulated (and there is one). */
    boolean simulationTable() {
        return !rows.isEmpty() && rows.stream().allMatch(r -> r.event().getIsSimulation());
    }

    /**
     * Tokens the content rules accept but {@link PoolToken#parse} refuses: the loader reads every token's GUID with
     * it, so each one is a disagreement between the producer's check and the loader (filled by {@link #columns}).
     */
    List<String> parserFindings() {
        return List.copyOf(parserFindings);
    }

    /**
     * The non-key columns of the event's EVENTS / DUPLICATEDEVENTS row, by name; a column not in the map must be NULL.
     */
    Map<String, Object> columns(Row r) {
        EIEvent_p1 e = r.event();
        TriggerMenu_p1 menu = r.file().firstMenu();
        Map<String, Object> c = new LinkedHashMap<>();
        c.put(KuduSchemas.RUNNUMBER, e.getRunNumber());
        c.put(KuduSchemas.LUMIBLOCKNR, e.getLumiBlock());
        c.put(KuduSchemas.BUNCHID, e.getBcid());
        c.put(KuduSchemas.EVENTTIME, e.getTimeStamp());
        c.put(KuduSchemas.EVENTTIMES, e.getTimeStampNSOffset());
        if (e.hasExtendedLevel1ID()) {
            c.put(KuduSchemas.LVLID, Integer.toUnsignedLong(e.getExtendedLevel1ID()));
        }
        key(c, KuduSchemas.SMK, e.hasSMK(), e.getSMK(), menu == null ? null : menu.getSMK());
        key(c, KuduSchemas.HLTPSK, e.hasHLTPSK(), e.getHLTPSK(), menu == null ? null : menu.getHLTPSK());
        key(c, KuduSchemas.L1PSK, e.hasL1PSK(), e.getL1PSK(), menu == null ? null : menu.getL1PSK());
        if (e.getEitokenCount() == 0) {
            c.put(KuduSchemas.DB, r.guid());
        } else {
            for (int i = 0; i < e.getEitokenCount(); i++) {
                EItoken_p1 t = e.getEitoken(i);
                String db = db(t.getToken(), r);
                if (i == 0) {
                    c.put(KuduSchemas.DB, db);
                    c.put(KuduSchemas.TK, t.getToken());
                }
                for (String[] stage : STAGES) {
                    if (stage[0].equals(t.getName()) && !c.containsKey(stage[1])) {
                        c.put(stage[1], db);
                        c.put(stage[2], t.getToken());
                    }
                }
            }
        }
        if (e.hasL1PassedTrigMask()) {
            long[] words = new long[KuduSchemas.L1_WORDS];
            TriggerMask.decodeL1Words(e.getL1PassedTrigMaskBytes().toByteArray(), words);
            words(c, words, true);
        }
        if (e.hasEFPassedTrigMask()) {
            long[] words = new long[KuduSchemas.HLT_WORDS];
            TriggerMask.decodeHltWords(e.getEFPassedTrigMaskBytes().toByteArray(), words);
            words(c, words, false);
        }
        return c;
    }

    /** Trigger pair {@code (trig1 << 32) | trig2} -> events where both fired, over the first occurrences. */
    Map<Long, Long> triggerPairs() {
        Map<Long, Long> pairs = new TreeMap<>();
        long[] l1 = new long[KuduSchemas.L1_WORDS];
        long[] hlt = new long[KuduSchemas.HLT_WORDS];
        for (Row r : rows) {
            if (r.occurrence() != 1) {
                continue;
            }
            List<Integer> fired = new ArrayList<>();
            EIEvent_p1 e = r.event();
            if (e.hasL1PassedTrigMask()) {
                TriggerMask.decodeL1Words(e.getL1PassedTrigMaskBytes().toByteArray(), l1);
                // TAV: bits 1024..1535
                addBits(fired, l1, 2 * TriggerMask.L1_BITS, TriggerMask.L1_BITS, 0);
            }
            if (e.hasEFPassedTrigMask()) {
                TriggerMask.decodeHltWords(e.getEFPassedTrigMaskBytes().toByteArray(), hlt);
                // passed physics: bits 0..4095, ids from 512
                addBits(fired, hlt, 0, TriggerMask.HLT_BITS, TriggerMask.L1_BITS);
            }
            for (int i = 0; i < fired.size(); i++) {
                for (int j = i; j < fired.size(); j++) {
                    pairs.merge((long) fired.get(i) << 32 | fired.get(j), 1L, Long::sum);
                }
            }
        }
        return pairs;
    }

    /**
     * What the experiment's sender reports of each input file (the signal's {@code files} for an object the producer
     * refused): its event count and, per run, the smallest and largest event number (unsigned).
     */
    List<SignalFile> claims() {
        List<SignalFile> out = new ArrayList<>();
        if (rc.files().isEmpty()) {
            for (String guid : rc.jobInputs()) {
                out.add(new SignalFile(guid, 0, Map.of()));
            }
            return out;
        }
        for (RandomCase.InputFile f : rc.files()) {
            out.add(new SignalFile(f.guid(), f.events().size(), ranges(f)));
        }
        return out;
    }

    /**
     * The event as protobuf reads its bytes: fields the schema does not know dropped (also in its tokens), the last
     * value of a field written twice. What the model wrote and what every reader of the object sees differ only in
     * {@code unknown-fields} cases.
     */
    static EIEvent_p1 asRead(EIEvent_p1 written) {
        try {
            return READER.parseFrom(written.toByteArray());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a written event does not parse: " + e.getMessage(), e);
        }
    }

    /** Per run (unsigned decimal) the file's smallest and largest event number, unsigned. */
    Map<String, EventRange> ranges(RandomCase.InputFile f) {
        Map<Long, long[]> runs = new TreeMap<>();
        for (EIEvent_p1 e : parsed.get(f)) {
            long[] r = runs.computeIfAbsent(Integer.toUnsignedLong(e.getRunNumber()), k -> new long[] {-1L, 0L});
            if (Long.compareUnsigned(e.getEventNumber(), r[0]) < 0) {
                r[0] = e.getEventNumber();
            }
            if (Long.compareUnsigned(e.getEventNumber(), r[1]) > 0) {
                r[1] = e.getEventNumber();
            }
        }
        Map<String, EventRange> out = new LinkedHashMap<>();
        runs.forEach((run, r) -> out.put(Long.toString(run), new EventRange(r[0], r[1])));
        return out;
    }

    /** Events of the file unique by (run, event): the producer's {@code nuevents}. */
    long uniqueEvents(RandomCase.InputFile f) {
        Set<String> seen = new HashSet<>();
        for (EIEvent_p1 e : parsed.get(f)) {
            seen.add(Integer.toUnsignedString(e.getRunNumber()) + "/" + Long.toUnsignedString(e.getEventNumber()));
        }
        return seen.size();
    }

    private String db(String token, Row r) {
        try {
            return PoolToken.parse(token).db();
        } catch (IllegalArgumentException e) {
            // the grammar's own reading: [DB=<36 characters>]
            parserFindings.add("event " + Integer.toUnsignedString(r.event().getRunNumber()) + "/"
                    + Long.toUnsignedString(r.event().getEventNumber()) + " of GUID " + r.guid() + ": PoolToken.parse"
                    + " refuses a token the content rules accepted ('" + Printable.of(token, 200) + "'): "
                    + e.getMessage());
            return token.length() >= 40 ? token.substring(4, 40) : token;
        }
    }

    private static void key(Map<String, Object> c, String column, boolean onEvent, int value, Integer fromMenu) {
        if (onEvent) {
            c.put(column, value);
        } else if (fromMenu != null) {
            c.put(column, fromMenu);
        }
    }

    private static void words(Map<String, Object> c, long[] words, boolean l1) {
        boolean any = false;
        for (int w = 0; w < words.length; w++) {
            if (words[w] != 0) {
                c.put(l1 ? KuduSchemas.l1Word(w) : KuduSchemas.hltWord(w), words[w]);
                any = true;
            }
        }
        if (!any) {
            c.put(l1 ? KuduSchemas.l1Word(0) : KuduSchemas.hltWord(0), 0L);
        }
    }

    private static void addBits(List<Integer> out, long[] words, int fromBit, int bits, int idOffset) {
        for (int b = 0; b < bits; b++) {
            int bit = fromBit + b;
            if ((words[bit >>> 6] >>> (bit & 63) & 1) != 0) {
                out.add(idOffset + b);
            }
        }
    }
}
