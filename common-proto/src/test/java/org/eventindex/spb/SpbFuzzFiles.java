package org.eventindex.spb;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.google.protobuf.MessageLite;
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
     * @param messages   every message in file order, EndGUID and Trailer included as the writer made them
     * @param guids      the GUIDs of the BeginGUID messages, in order
     * @param guidsValid true when no GUID is empty or repeated (the reader refuses such files)
     */
    record Written(byte[] gzipped, List<Object> messages, List<String> guids, boolean guidsValid) {
    }

    private SpbFuzzFiles() {
    }

    static Written write(FuzzedDataProvider data) throws IOException {
        List<Object> messages = new ArrayList<>();
        List<String> guids = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (SpbWriter writer = new SpbWriter(out)) {
            Header_p1 header = Header_p1.newBuilder().setStartProcTime(data.consumeLong())
                    .setTaskID(text(data)).setJobID(text(data)).setInputDsName(text(data))
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
        boolean valid = distinct.size() == guids.size() && !distinct.contains("");
        return new Written(out.toByteArray(), List.copyOf(messages), List.copyOf(guids), valid);
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
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(data.consumeInt())
                .setEventNumber(data.consumeLong()).setLumiBlock(data.consumeInt()).setTimeStamp(data.consumeInt())
                .setTimeStampNSOffset(data.consumeInt()).setBcid(data.consumeInt())
                .setIsSimulation(data.consumeBoolean()).setIsCalibration(data.consumeBoolean())
                .setIsTestBeam(data.consumeBoolean());
        if (data.consumeBoolean()) {
            b.setL1PassedTrigMask(text(data)).setEFPassedTrigMask(text(data));
        }
        if (data.consumeBoolean()) {
            b.setMcEventWeight(data.consumeRegularFloat()).setMcChannelNumber(data.consumeInt());
        }
        int tokens = data.consumeInt(0, 3);
        for (int t = 0; t < tokens; t++) {
            b.addEitoken(EItoken_p1.newBuilder().setName(text(data)).setToken(text(data)));
        }
        return b.build();
    }

    // ASCII: protobuf writes an unpaired surrogate as '?', which would break the equality checked here.
    private static String text(FuzzedDataProvider data) {
        return data.consumeAsciiString(MAX_TEXT);
    }
}
