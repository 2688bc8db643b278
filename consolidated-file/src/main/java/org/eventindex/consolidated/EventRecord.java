package org.eventindex.consolidated;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.spb.EventFields;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One row of a consolidated file as the loader needs it: the {@code EIEvent_p1} fields and the file GUID, strings as
 * their UTF-8 bytes, without building a protobuf message. The reader fills one instance again for every row.
 * <p>
 * Byte arrays are never written after they are set (a new array per value): the Kudu client keeps a reference to
 * them until the row is flushed, so a row can be applied and this record refilled at once.
 */
public final class EventRecord extends EventFields {
    /** Coded masks, null when the event has none. */
    public byte[] l1PassedTrigMask;
    public byte[] l2PassedTrigMask;
    public byte[] efPassedTrigMask;
    /** Tokens {@code 0..tokenCount-1}: stream name and POOL token. */
    public int tokenCount;
    public byte[][] tokenNames = new byte[4][];
    public byte[][] tokens = new byte[4][];
    /** The GUID of the file the event was indexed from, as text and as UTF-8. */
    public String guid;
    public byte[] guidBytes;

    /** Resets every field to absent / zero (a row starts from here). */
    public void clear() {
        clearFields();
        l1PassedTrigMask = l2PassedTrigMask = efPassedTrigMask = null;
        Arrays.fill(tokenNames, 0, tokenCount, null);
        Arrays.fill(tokens, 0, tokenCount, null);
        tokenCount = 0;
        guid = null;
        guidBytes = null;
    }

    public void addToken(byte[] name, byte[] token) {
        if (tokenCount == tokens.length) {
            tokenNames = Arrays.copyOf(tokenNames, tokenCount * 2);
            tokens = Arrays.copyOf(tokens, tokenCount * 2);
        }
        tokenNames[tokenCount] = name;
        tokens[tokenCount] = token;
        tokenCount++;
    }

    /** Sets this record from a parsed event (older SPB sources, tests). */
    public EventRecord set(EIEvent_p1 e, String fileGuid) {
        clear();
        runNumber = e.getRunNumber();
        eventNumber = e.getEventNumber();
        lumiBlock = e.getLumiBlock();
        timeStamp = e.getTimeStamp();
        timeStampNSOffset = e.getTimeStampNSOffset();
        bcid = e.getBcid();
        hasExtendedLevel1ID = e.hasExtendedLevel1ID();
        extendedLevel1ID = e.getExtendedLevel1ID();
        isSimulation = e.getIsSimulation();
        isCalibration = e.getIsCalibration();
        isTestBeam = e.getIsTestBeam();
        l1PassedTrigMask = e.hasL1PassedTrigMask() ? e.getL1PassedTrigMaskBytes().toByteArray() : null;
        l2PassedTrigMask = e.hasL2PassedTrigMask() ? e.getL2PassedTrigMaskBytes().toByteArray() : null;
        efPassedTrigMask = e.hasEFPassedTrigMask() ? e.getEFPassedTrigMaskBytes().toByteArray() : null;
        hasSmk = e.hasSMK();
        smk = e.getSMK();
        hasHltpsk = e.hasHLTPSK();
        hltpsk = e.getHLTPSK();
        hasL1psk = e.hasL1PSK();
        l1psk = e.getL1PSK();
        hasMcEventWeight = e.hasMcEventWeight();
        mcEventWeight = e.getMcEventWeight();
        hasMcChannelNumber = e.hasMcChannelNumber();
        mcChannelNumber = e.getMcChannelNumber();
        for (EItoken_p1 t : e.getEitokenList()) {
            addToken(t.getNameBytes().toByteArray(), t.getTokenBytes().toByteArray());
        }
        guid = fileGuid;
        guidBytes = fileGuid == null ? null : fileGuid.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    public static EventRecord of(EIEvent_p1 e, String fileGuid) {
        return new EventRecord().set(e, fileGuid);
    }

    /** The event as a protobuf message (its serialization equals {@link #writeTo}). */
    public EIEvent_p1 toEvent() {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(runNumber).setEventNumber(eventNumber)
                .setLumiBlock(lumiBlock).setTimeStamp(timeStamp).setTimeStampNSOffset(timeStampNSOffset)
                .setBcid(bcid).setIsSimulation(isSimulation).setIsCalibration(isCalibration)
                .setIsTestBeam(isTestBeam);
        if (hasExtendedLevel1ID) {
            b.setExtendedLevel1ID(extendedLevel1ID);
        }
        if (l1PassedTrigMask != null) {
            b.setL1PassedTrigMaskBytes(ByteString.copyFrom(l1PassedTrigMask));
        }
        if (l2PassedTrigMask != null) {
            b.setL2PassedTrigMaskBytes(ByteString.copyFrom(l2PassedTrigMask));
        }
        if (efPassedTrigMask != null) {
            b.setEFPassedTrigMaskBytes(ByteString.copyFrom(efPassedTrigMask));
        }
        if (hasSmk) {
            b.setSMK(smk);
        }
        if (hasHltpsk) {
            b.setHLTPSK(hltpsk);
        }
        if (hasL1psk) {
            b.setL1PSK(l1psk);
        }
        if (hasMcEventWeight) {
            b.setMcEventWeight(mcEventWeight);
        }
        if (hasMcChannelNumber) {
            b.setMcChannelNumber(mcChannelNumber);
        }
        for (int i = 0; i < tokenCount; i++) {
            b.addEitoken(EItoken_p1.newBuilder().setNameBytes(ByteString.copyFrom(tokenNames[i]))
                    .setTokenBytes(ByteString.copyFrom(tokens[i])));
        }
        return b.build();
    }

    /**
     * Writes the event's deterministic protobuf serialization (what {@code toEvent().toByteArray()} gives: fields in
     * number order, optional fields only when present) into {@code out[0, size)}.
     *
     * @param size {@link #serializedSize()}, at most {@code out.length}
     */
    public void serializeInto(byte[] out, int size) {
        CodedOutputStream o = CodedOutputStream.newInstance(out, 0, size);
        try {
            writeTo(o);
        } catch (IOException e) {
            throw new UncheckedIOException("the serialized size was computed wrongly", e);
        }
    }

    public int serializedSize() {
        int n = CodedOutputStream.computeUInt32Size(1, runNumber)
                + CodedOutputStream.computeUInt64Size(2, eventNumber)
                + CodedOutputStream.computeUInt32Size(3, lumiBlock)
                + CodedOutputStream.computeUInt32Size(4, timeStamp)
                + CodedOutputStream.computeUInt32Size(5, timeStampNSOffset)
                + CodedOutputStream.computeUInt32Size(6, bcid)
                + 3 * CodedOutputStream.computeBoolSize(8, false);
        if (hasExtendedLevel1ID) {
            n += CodedOutputStream.computeUInt32Size(7, extendedLevel1ID);
        }
        n += bytesSize(11, l1PassedTrigMask) + bytesSize(12, l2PassedTrigMask) + bytesSize(13, efPassedTrigMask);
        if (hasSmk) {
            n += CodedOutputStream.computeUInt32Size(14, smk);
        }
        if (hasHltpsk) {
            n += CodedOutputStream.computeUInt32Size(15, hltpsk);
        }
        if (hasL1psk) {
            n += CodedOutputStream.computeUInt32Size(16, l1psk);
        }
        if (hasMcEventWeight) {
            n += CodedOutputStream.computeFloatSize(17, mcEventWeight);
        }
        if (hasMcChannelNumber) {
            n += CodedOutputStream.computeUInt32Size(18, mcChannelNumber);
        }
        for (int i = 0; i < tokenCount; i++) {
            int t = tokenSize(i);
            n += CodedOutputStream.computeTagSize(20) + CodedOutputStream.computeUInt32SizeNoTag(t) + t;
        }
        return n;
    }

    private void writeTo(CodedOutputStream o) throws IOException {
        o.writeUInt32(1, runNumber);
        o.writeUInt64(2, eventNumber);
        o.writeUInt32(3, lumiBlock);
        o.writeUInt32(4, timeStamp);
        o.writeUInt32(5, timeStampNSOffset);
        o.writeUInt32(6, bcid);
        if (hasExtendedLevel1ID) {
            o.writeUInt32(7, extendedLevel1ID);
        }
        o.writeBool(8, isSimulation);
        o.writeBool(9, isCalibration);
        o.writeBool(10, isTestBeam);
        writeBytes(o, 11, l1PassedTrigMask);
        writeBytes(o, 12, l2PassedTrigMask);
        writeBytes(o, 13, efPassedTrigMask);
        if (hasSmk) {
            o.writeUInt32(14, smk);
        }
        if (hasHltpsk) {
            o.writeUInt32(15, hltpsk);
        }
        if (hasL1psk) {
            o.writeUInt32(16, l1psk);
        }
        if (hasMcEventWeight) {
            o.writeFloat(17, mcEventWeight);
        }
        if (hasMcChannelNumber) {
            o.writeUInt32(18, mcChannelNumber);
        }
        for (int i = 0; i < tokenCount; i++) {
            o.writeTag(20, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(tokenSize(i));
            writeBytes(o, 1, tokenNames[i]);
            writeBytes(o, 2, tokens[i]);
        }
        o.checkNoSpaceLeft();
    }

    private int tokenSize(int i) {
        return bytesSize(1, tokenNames[i]) + bytesSize(2, tokens[i]);
    }

    private static int bytesSize(int field, byte[] value) {
        return value == null ? 0 : CodedOutputStream.computeTagSize(field)
                + CodedOutputStream.computeUInt32SizeNoTag(value.length) + value.length;
    }

    private static void writeBytes(CodedOutputStream o, int field, byte[] value) throws IOException {
        if (value != null) {
            o.writeBytes(field, UnsafeByteOperations.unsafeWrap(value));
        }
    }
}
