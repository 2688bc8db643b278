package org.eventindex.spb;

import com.google.protobuf.ByteString;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.Printable;
import org.eventindex.names.TriggerMask;
import org.eventindex.names.Utf8;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.nio.charset.StandardCharsets;

/**
 * What an object's messages must hold beyond the SPB structure and the size limits: the one definition of valid
 * content, applied by {@link SpbReader} to every stream it reads, so that the producer's validation and the consumer's
 * first read of an object accept exactly the same objects, and everything they accept the consumer's merge and the
 * Kudu loader can store (docs/formats.md, "Valid content"). Each rule below is one the consumer or the loader would
 * otherwise fail on, or one whose breach would store something other than what the job wrote:
 * <ol>
 *   <li>every string of every message is well-formed UTF-8 (strings end up in Parquet STRING columns, the file's JSON
 *       footer and Kudu STRING columns);</li>
 *   <li>the Header's {@code inputDsName} is a dataset name ({@link DatasetName}): it names the HDFS directory, the
 *       Kudu keys and the dataset the consumer compares the object with;</li>
 *   <li>every eitoken's token follows the POOL token grammar, either OID form ({@link PoolToken#problem}): the
 *       consolidated file and the loader take each stage's file GUID from it;</li>
 *   <li>{@code L1PassedTrigMask} decodes to exactly 1,536 bits and {@code EFPassedTrigMask} to three masks of 4,096
 *       bits ({@link TriggerMask}), as the loader decodes them into the trigger words and TRIGGERCOUNT;
 *       {@code L2PassedTrigMask}, which nothing decodes, is kept as the job wrote it;</li>
 *   <li>one run per dataset: the events of a {@code data*} dataset carry the run of its name, the events of any other
 *       dataset (simulation: the conditions run) all carry one run. EVENTS is keyed by (dataset, event number), so a
 *       second run's events would collide with the first run's as "duplicates" and a lookup of the second run would
 *       answer the first run's event. Within an object this is checked here; across the objects of a dataset by the
 *       consumer ({@link #run()});</li>
 *   <li>one value of {@code isSimulation} for every event of a dataset (the loader puts a dataset whose events are all
 *       simulated into MCEVENTS, any other into EVENTS, which has no simulation columns): here within the object,
 *       across objects by the consumer ({@link #simulation()});</li>
 *   <li>at least one input file: a producer message lists one entry per input file, and one without any is refused
 *       by the supervisor.</li>
 * </ol>
 * A breach is a {@link SpbFormatException.Problem#BAD_CONTENT}, naming the message (for an event its run, event number
 * and GUID), the rule and the offending value. One instance per stream; not thread-safe.
 */
public final class ContentRules {
    /** No event read yet. */
    private static final long UNSET = -1L;

    private DatasetName dataset;
    /** The run every event must carry: the data dataset's, or the first event's; {@link #UNSET} before that. */
    private long run = UNSET;
    /** Whether the run comes from the dataset name (a data* project) rather than from the first event. */
    private boolean runFromName;
    /** 0: no event yet; 1: not simulated; 2: simulated. */
    private int simulation;
    private final PoolToken.Checker tokens = new PoolToken.Checker(SpbContentLimits.TOKENS_PER_EVENT);
    private final ValidMasks validL1 = new ValidMasks();
    private final ValidMasks validHlt = new ValidMasks();

    /** The dataset the Header names, or null before the Header. */
    public DatasetName dataset() {
        return dataset;
    }

    /** The run (unsigned) every event of the stream carries, or -1 when it has no event. */
    public long run() {
        return run;
    }

    /** Whether the stream's events are simulated; null when it has no event. */
    public Boolean simulation() {
        return simulation == 0 ? null : simulation == 2;
    }

    /** @return null, or what is wrong with the Header */
    String header(Header_p1 header) {
        String bad = utf8("taskID", header.getTaskIDBytes());
        bad = bad != null ? bad : utf8("jobID", header.getJobIDBytes());
        bad = bad != null ? bad : utf8("inputDsName", header.getInputDsNameBytes());
        if (bad != null) {
            return "HEADER " + bad;
        }
        try {
            dataset = DatasetName.parse(header.getInputDsName());
        } catch (IllegalArgumentException e) {
            return "HEADER inputDsName is not a dataset name: " + e.getMessage();
        }
        if (dataset.project().startsWith("data")) {
            run = Integer.toUnsignedLong(dataset.runNumber());
            runFromName = true;
        }
        return null;
    }

    /** @return null, or what is wrong with the BeginGUID */
    String beginGuid(BeginGUID_p1 begin) {
        String bad = utf8("guid", begin.getGuidBytes());
        bad = bad != null ? bad : utf8("AMITag", begin.getAMITagBytes());
        bad = bad != null ? bad : utf8("trigStream", begin.getTrigStreamBytes());
        bad = bad != null ? bad : utf8("projName", begin.getProjNameBytes());
        return bad == null ? null : "BEGIN_GUID " + bad;
    }

    /** @return null, or what is wrong with the TriggerMenu */
    String triggerMenu(TriggerMenu_p1 menu, String guid) {
        String bad = utf8("L1Menu", menu.getL1MenuBytes());
        bad = bad != null ? bad : utf8("L2Menu", menu.getL2MenuBytes());
        bad = bad != null ? bad : utf8("EFMenu", menu.getEFMenuBytes());
        bad = bad != null ? bad : utf8("HLTMenu", menu.getHLTMenuBytes());
        return bad == null ? null : "TRIGGER_MENU of GUID " + guid + ": " + bad;
    }

    /**
     * Checks one event, scanned in place; allocates nothing unless it is refused.
     *
     * @return null, or what is wrong with it, naming its run, event number and GUID
     */
    String event(EventScan e, String guid) {
        long eventRun = Integer.toUnsignedLong(e.runNumber);
        if (run == UNSET) {
            run = eventRun;
        } else if (eventRun != run) {
            return at(e, guid) + "carries run " + eventRun + ", but " + (runFromName ? "its dataset " + dataset
                    + " is run " + run : "the object's events before it carry run " + run)
                    + ": a dataset holds one run (EVENTS is keyed by dataset and event number)";
        }
        int sim = e.isSimulation ? 2 : 1;
        if (simulation == 0) {
            simulation = sim;
        } else if (sim != simulation) {
            return at(e, guid) + "has isSimulation " + e.isSimulation + ", unlike the object's events before it:"
                    + " a dataset is simulation (MCEVENTS) or not (EVENTS) as a whole";
        }
        byte[] b = e.buf();
        if (e.l1MaskOff >= 0) {
            String bad = mask(b, e.l1MaskOff, e.l1MaskLen, true);
            if (bad != null) {
                return at(e, guid) + "L1PassedTrigMask is not a coded 1536-bit mask: " + bad;
            }
        }
        if (e.efMaskOff >= 0) {
            String bad = mask(b, e.efMaskOff, e.efMaskLen, false);
            if (bad != null) {
                return at(e, guid) + "EFPassedTrigMask is not three ';'-joined coded 4096-bit masks: " + bad;
            }
        }
        if (e.l2MaskOff >= 0 && !Utf8.isValid(b, e.l2MaskOff, e.l2MaskLen)) {
            return at(e, guid) + "L2PassedTrigMask is not UTF-8 (byte "
                    + Utf8.invalidAt(b, e.l2MaskOff, e.l2MaskLen) + ")";
        }
        for (int i = 0; i < e.tokenCount; i++) {
            if (!Utf8.isValid(b, e.nameOff[i], e.nameLen[i])) {
                return at(e, guid) + "eitoken " + i + " name is not UTF-8 (byte "
                        + Utf8.invalidAt(b, e.nameOff[i], e.nameLen[i]) + ")";
            }
            String bad = tokens.problem(i, b, e.tokenOff[i], e.tokenLen[i]);
            if (bad != null) {
                return at(e, guid) + "eitoken " + i + " ('" + Printable.of(new String(b, e.nameOff[i], e.nameLen[i],
                        StandardCharsets.UTF_8), 60) + "') is not a POOL token: " + bad;
            }
        }
        return null;
    }

    /** @return null, or why a stream with {@code files} input files is refused */
    String trailer(long files) {
        return files == 0 ? "the stream holds no input file (no BEGIN_GUID): its producer message would list none"
                : null;
    }

    private String mask(byte[] b, int off, int len, boolean l1) {
        ValidMasks valid = l1 ? validL1 : validHlt;
        if (valid.contains(b, off, len)) {
            return null;
        }
        // the loader's own decoders, writing no bits: what they accept here, they accept there
        try {
            if (l1) {
                TriggerMask.checkL1(b, off, len);
            } else {
                TriggerMask.checkHlt(b, off, len);
            }
            valid.remember(b, off, len);
            return null;
        } catch (IllegalArgumentException ex) {
            return ex.getMessage();
        }
    }

    private static String at(EventScan e, String guid) {
        return "EVENT (run " + Integer.toUnsignedString(e.runNumber) + ", event "
                + Long.toUnsignedString(e.eventNumber) + ") of GUID " + Printable.of(String.valueOf(guid), 80) + " ";
    }

    private static String utf8(String field, ByteString value) {
        if (value.isValidUtf8()) {
            return null;
        }
        byte[] b = value.toByteArray();
        return field + " is not UTF-8 (byte " + Utf8.invalidAt(b, 0, b.length) + ")";
    }
}
