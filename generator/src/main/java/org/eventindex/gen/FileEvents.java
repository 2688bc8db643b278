package org.eventindex.gen;

import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;

import java.util.Random;

/**
 * The event stream of one input file, a pure function of the plan and the file index. Events come in lumiblock
 * order with increasing event numbers; each file owns a disjoint slice of the run, so (run, event) is unique across
 * the dataset until cross-file copies are added.
 */
final class FileEvents {
    static final String OWN_STREAM = "StreamAOD";
    static final String ESD_STREAM = "StreamESD";
    static final String RAW_STREAM = "StreamRAW";

    private static final String DATA_HEADER_CONTAINER = "POOLContainer(DataHeader)";
    private static final String DATA_HEADER_CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";
    private static final String NULL_GUID = "00000000-0000-0000-0000-000000000000";
    private static final int ROOT_TECH = 0x202;
    private static final int BYTESTREAM_TECH = 0x1000;
    private static final int EVENTS_PER_LUMIBLOCK = 600;
    private static final int LUMIBLOCK_SECONDS = 60;
    private static final int BUNCH_CROSSINGS = 3564;
    // Event numbers advance by 1..MAX_GAP; a file's slice of the run is MAX_GAP+1 numbers per event wide.
    private static final int MAX_GAP = 7;

    private final DatasetPlan plan;
    private final String guid;
    private final Random random;
    private final int firstLumiBlock;
    private long eventNumber;
    private int index;
    private int level1Id;
    private String esdGuid;
    private String rawGuid;
    private int provenanceLeft;
    private long esdEntry;
    private long rawOffset;

    FileEvents(DatasetPlan plan, int file) {
        this.plan = plan;
        this.guid = plan.fileGuids.get(file);
        this.random = new Random(plan.fileSeed(file));
        int eventsPerFile = plan.spec.eventsPerFile();
        this.firstLumiBlock = 1 + file * ((eventsPerFile + EVENTS_PER_LUMIBLOCK - 1) / EVENTS_PER_LUMIBLOCK);
        this.eventNumber = plan.firstEventNumber + (long) file * eventsPerFile * (MAX_GAP + 1);
    }

    /** The next event of the file, stored at {@code entry} of the file that is being written. */
    EIEvent_p1 next(long entry) {
        if (provenanceLeft == 0) {
            // A merged AOD file is built from a sequence of ESD files, each from one RAW file.
            provenanceLeft = 300 + random.nextInt(400);
            esdGuid = DatasetPlan.guid(random);
            rawGuid = DatasetPlan.guid(random);
            esdEntry = random.nextInt(1000);
            rawOffset = 1024 + random.nextInt(4096);
        }
        provenanceLeft--;
        eventNumber += 1 + random.nextInt(MAX_GAP);
        int lumiBlock = firstLumiBlock + index / EVENTS_PER_LUMIBLOCK;
        long seconds = plan.runStartSeconds + (long) (lumiBlock - 1) * LUMIBLOCK_SECONDS
                + (long) (index % EVENTS_PER_LUMIBLOCK) * LUMIBLOCK_SECONDS / EVENTS_PER_LUMIBLOCK;
        level1Id = (level1Id + 1 + random.nextInt(300)) & 0xffffff;
        index++;

        EIEvent_p1.Builder e = EIEvent_p1.newBuilder()
                .setRunNumber(plan.runNumber())
                .setEventNumber(eventNumber)
                .setLumiBlock(lumiBlock)
                .setTimeStamp((int) seconds)
                .setTimeStampNSOffset(random.nextInt(1_000_000_000))
                .setBcid(random.nextInt(BUNCH_CROSSINGS))
                .setExtendedLevel1ID((lumiBlock & 0xff) << 24 | level1Id)
                .setIsSimulation(plan.simulation())
                .setIsCalibration(false)
                .setIsTestBeam(false)
                .setL1PassedTrigMask(plan.triggers.l1(random))
                .setEFPassedTrigMask(plan.triggers.hlt(random))
                .setSMK(plan.smk)
                .setHLTPSK(plan.hltpsk)
                .setL1PSK(plan.l1psk);
        if (plan.simulation()) {
            e.setMcChannelNumber(plan.name.runNumber())
                    .setMcEventWeight((float) (1.0 + 0.2 * random.nextGaussian()));
        }
        esdEntry += 1 + (random.nextInt(8) == 0 ? 1 : 0);
        rawOffset += 900_000 + random.nextInt(1_200_000);
        e.addEitoken(token(OWN_STREAM, ownToken(guid, entry)));
        if (!plan.provenance()) {
            return e.build();
        }
        e.addEitoken(token(ESD_STREAM, new PoolToken(esdGuid, DATA_HEADER_CONTAINER, DATA_HEADER_CLID, ROOT_TECH,
                5, esdEntry).format()));
        e.addEitoken(token(RAW_STREAM, new PoolToken(rawGuid, "", NULL_GUID, BYTESTREAM_TECH, 0, rawOffset)
                .format()));
        return e.build();
    }

    /** The same event stored in another file: only the own-stream token (where it is) changes. */
    static EIEvent_p1 rehome(EIEvent_p1 event, String fileGuid, long entry) {
        EIEvent_p1.Builder b = event.toBuilder();
        for (int i = 0; i < b.getEitokenCount(); i++) {
            if (OWN_STREAM.equals(b.getEitoken(i).getName())) {
                b.setEitoken(i, token(OWN_STREAM, ownToken(fileGuid, entry)));
            }
        }
        return b.build();
    }

    private static String ownToken(String fileGuid, long entry) {
        return new PoolToken(fileGuid, DATA_HEADER_CONTAINER, DATA_HEADER_CLID, ROOT_TECH, 5, entry).format();
    }

    private static EItoken_p1 token(String name, String token) {
        return EItoken_p1.newBuilder().setName(name).setToken(token).build();
    }
}
