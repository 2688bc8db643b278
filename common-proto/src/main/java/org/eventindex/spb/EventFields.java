package org.eventindex.spb;

/**
 * The numeric and flag fields of an {@code EIEvent_p1} as plain values (a {@code has} flag per optional one), shared by
 * the holders that read events without protobuf messages: {@link EventScan} (strings as offsets into the scanned
 * bytes) and the Kudu loader's {@code EventRecord} (strings as arrays).
 */
public abstract class EventFields {
    public int runNumber;
    public long eventNumber;
    public int lumiBlock;
    public int timeStamp;
    public int timeStampNSOffset;
    public int bcid;
    public boolean hasExtendedLevel1ID;
    public int extendedLevel1ID;
    public boolean isSimulation;
    public boolean isCalibration;
    public boolean isTestBeam;
    public boolean hasSmk;
    public int smk;
    public boolean hasHltpsk;
    public int hltpsk;
    public boolean hasL1psk;
    public int l1psk;
    public boolean hasMcEventWeight;
    public float mcEventWeight;
    public boolean hasMcChannelNumber;
    public int mcChannelNumber;

    /** Every field as in {@code other}. */
    public void copyFieldsFrom(EventFields other) {
        runNumber = other.runNumber;
        eventNumber = other.eventNumber;
        lumiBlock = other.lumiBlock;
        timeStamp = other.timeStamp;
        timeStampNSOffset = other.timeStampNSOffset;
        bcid = other.bcid;
        hasExtendedLevel1ID = other.hasExtendedLevel1ID;
        extendedLevel1ID = other.extendedLevel1ID;
        isSimulation = other.isSimulation;
        isCalibration = other.isCalibration;
        isTestBeam = other.isTestBeam;
        hasSmk = other.hasSmk;
        smk = other.smk;
        hasHltpsk = other.hasHltpsk;
        hltpsk = other.hltpsk;
        hasL1psk = other.hasL1psk;
        l1psk = other.l1psk;
        hasMcEventWeight = other.hasMcEventWeight;
        mcEventWeight = other.mcEventWeight;
        hasMcChannelNumber = other.hasMcChannelNumber;
        mcChannelNumber = other.mcChannelNumber;
    }

    /** Every field to zero / absent. */
    protected void clearFields() {
        runNumber = lumiBlock = timeStamp = timeStampNSOffset = bcid = 0;
        eventNumber = 0;
        hasExtendedLevel1ID = hasSmk = hasHltpsk = hasL1psk = hasMcEventWeight = hasMcChannelNumber = false;
        extendedLevel1ID = smk = hltpsk = l1psk = mcChannelNumber = 0;
        mcEventWeight = 0;
        isSimulation = isCalibration = isTestBeam = false;
    }
}
