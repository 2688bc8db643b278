package org.eventindex.spb;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.google.protobuf.MessageLite;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Builds SPB files from structured fuzz input through {@link SpbWriter}, remembering every message written. */
final class SpbFuzzFiles {
    private static final int MAX_FILES = 4;
    private static final int MAX_EVENTS = 20;
    private static final int MAX_TEXT = 40;

    /**
     * @param messages     every message in file order, EndGUID and Trailer included as the writer made them
     * @param guids        the GUIDs of the BeginGUID messages, in order
     * @param guidsValid   true when no GUID is empty, blank or repeated (the reader refuses such files)
     * @param contentValid true when the content rules hold ({@link ContentRules}, decided here on their own, with
     *                     the public parsers): a dataset name, one run and one simulation flag, masks and tokens that
     *                     parse, at least one input file
     */
    record Written(byte[] gzipped, List<Object> messages, List<String> guids, boolean guidsValid,
                   boolean contentValid) {
    }

    /** Dataset names: mostly valid (data and simulation), sometimes not. */
    private static final String[] NAMES = {
        "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824",
        "mc16_13TeV.361106.PowhegPythia8EvtGen_AZNLOCTEQ6L1_Zee.merge.AOD.e3601_s3126_r9364_tid12345678_00",
        "data17_13TeV.327636.physics_Main.merge.AOD.f838_m1824",
        "not a dataset",
    };
    private static final String TOKEN = "[DB=0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9][CNT=POOLContainer(DataHeader)]"
            + "[CLID=D82968A1-CF91-4320-B2DD-E0F739CBC7E6][TECH=00000202][OID=0000000000000005-00000000000003E8]";
    private static final String L1_MASK = TriggerMask.encodeL1(java.util.BitSet.valueOf(new long[]{0x8001, 1L << 40}),
            java.util.BitSet.valueOf(new long[]{0x8001}), java.util.BitSet.valueOf(new long[]{1}));
    private static final String HLT_MASK = TriggerMask.encodeHlt(java.util.BitSet.valueOf(new long[]{5, 0, 1L << 63}),
            new java.util.BitSet(), java.util.BitSet.valueOf(new long[]{0, 2}));
    private static final String OLD_TOKEN = "[DB=0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9][CNT=]"
            + "[CLID=D82968A1-CF91-4320-B2DD-E0F739CBC7E6][TECH=00001000][OID=00000005-000003E8]";

    private SpbFuzzFiles() {
    }

    static Written write(FuzzedDataProvider data) throws IOException {
        List<Object> messages = new ArrayList<>();
        List<String> guids = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (SpbWriter writer = new SpbWriter(out)) {
            Header_p1 header = Header_p1.newBuilder().setStartProcTime(data.consumeLong())
                    .setTaskID(text(data)).setJobID(text(data))
                    .setInputDsName(data.consumeBoolean() ? NAMES[data.consumeInt(0, NAMES.length - 1)] : text(data))
                    .setProvenanceRef(data.consumeBoolean()).setTriggerInfo(data.consumeBoolean()).build();
            writer.header(header);
            messages.add(header);
            int files = data.consumeInt(0, MAX_FILES);
            for (int f = 0; f < files; f++) {
                BeginGUID_p1 begin = BeginGUID_p1.newBuilder().setStartProcTime(data.consumeLong())
                        .setAMITag(text(data)).setTrigStream(text(data)).setProjName(text(data))
                        .setGuid(text(data)).build();
                writer.beginGuid(begin);
                messages.add(begin);
                guids.add(begin.getGuid());
                int events = data.consumeInt(0, MAX_EVENTS);
                for (int e = 0; e < events; e++) {
                    if (data.consumeInt(0, 7) == 0) {
                        TriggerMenu_p1 menu = menu(data);
                        writer.triggerMenu(menu);
                        messages.add(menu);
                    }
                    EIEvent_p1 event = event(data);
                    writer.event(event);
                    messages.add(event);
                }
                long endTime = data.consumeLong();
                writer.endGuid(endTime);
                messages.add(EndGUID_p1.newBuilder().setEndProcTime(endTime).setNentries(events).build());
            }
            long endTime = data.consumeLong();
            writer.finish(endTime);
            messages.add(Trailer_p1.newBuilder().setEndProcTime(endTime).setNentries((int) writer.events())
                    .setNfiles(files).build());
        }
        Set<String> distinct = new HashSet<>(guids);
        boolean valid = distinct.size() == guids.size() && distinct.stream().noneMatch(String::isBlank);
        return new Written(out.toByteArray(), List.copyOf(messages), List.copyOf(guids), valid,
                contentValid(messages));
    }

    /** The content rules, decided on their own from the messages written. */
    private static boolean contentValid(List<Object> messages) {
        DatasetName name;
        try {
            name = DatasetName.parse(((Header_p1) messages.get(0)).getInputDsName());
        } catch (IllegalArgumentException e) {
            return false;
        }
        Integer run = name.project().startsWith("data") ? name.runNumber() : null;
        Boolean simulation = null;
        int files = 0;
        for (Object m : messages) {
            if (m instanceof BeginGUID_p1) {
                files++;
            } else if (m instanceof EIEvent_p1 e) {
                if (run != null && run != e.getRunNumber()) {
                    return false;
                }
                run = e.getRunNumber();
                if (simulation != null && simulation != e.getIsSimulation()) {
                    return false;
                }
                simulation = e.getIsSimulation();
                try {
                    if (e.hasL1PassedTrigMask()) {
                        TriggerMask.decodeL1(e.getL1PassedTrigMask());
                    }
                    if (e.hasEFPassedTrigMask()) {
                        TriggerMask.decodeHlt(e.getEFPassedTrigMask());
                    }
                    for (EItoken_p1 t : e.getEitokenList()) {
                        PoolToken.parse(t.getToken());
                    }
                } catch (IllegalArgumentException bad) {
                    return false;
                }
            }
        }
        return files > 0;
    }

    /** The protobuf message a record carries. */
    static MessageLite message(SpbRecord r) {
        // Java 17: no pattern matching in switch yet.
        if (r instanceof SpbRecord.Header h) {
            return h.message();
        } else if (r instanceof SpbRecord.BeginGuid b) {
            return b.message();
        } else if (r instanceof SpbRecord.TriggerMenu m) {
            return m.message();
        } else if (r instanceof SpbRecord.Event e) {
            return e.message();
        } else if (r instanceof SpbRecord.EndGuid e) {
            return e.message();
        }
        return ((SpbRecord.Trailer) r).message();
    }

    private static TriggerMenu_p1 menu(FuzzedDataProvider data) {
        TriggerMenu_p1.Builder b = TriggerMenu_p1.newBuilder().setSMK(data.consumeInt()).setL1PSK(data.consumeInt())
                .setHLTPSK(data.consumeInt()).setL1Menu(text(data));
        if (data.consumeBoolean()) {
            b.setHLTMenu(text(data));
        }
        return b.build();
    }

    private static EIEvent_p1 event(FuzzedDataProvider data) {
        // mostly the run and flag of the first dataset name, sometimes anything
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                .setRunNumber(data.consumeInt(0, 7) == 0 ? data.consumeInt() : 327636)
                .setEventNumber(data.consumeLong()).setLumiBlock(data.consumeInt()).setTimeStamp(data.consumeInt())
                .setTimeStampNSOffset(data.consumeInt()).setBcid(data.consumeInt())
                .setIsSimulation(data.consumeInt(0, 7) == 0).setIsCalibration(data.consumeBoolean())
                .setIsTestBeam(data.consumeBoolean());
        if (data.consumeBoolean()) {
            boolean valid = data.consumeInt(0, 7) > 0;
            b.setL1PassedTrigMask(valid ? L1_MASK : text(data));
            b.setEFPassedTrigMask(data.consumeInt(0, 7) > 0 ? HLT_MASK : text(data));
        }
        if (data.consumeBoolean()) {
            b.setMcEventWeight(data.consumeRegularFloat()).setMcChannelNumber(data.consumeInt());
        }
        int tokens = data.consumeInt(0, 3);
        for (int t = 0; t < tokens; t++) {
            int form = data.consumeInt(0, 7);
            b.addEitoken(EItoken_p1.newBuilder().setName(text(data))
                    .setToken(form == 0 ? text(data) : form == 1 ? OLD_TOKEN : TOKEN));
        }
        return b.build();
    }

    // ASCII: protobuf writes an unpaired surrogate as '?', which would break the equality checked here.
    private static String text(FuzzedDataProvider data) {
        return data.consumeAsciiString(MAX_TEXT);
    }
}
