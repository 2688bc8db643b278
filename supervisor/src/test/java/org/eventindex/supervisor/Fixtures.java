package org.eventindex.supervisor;

import org.eventindex.message.EventRange;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;

import java.nio.charset.StandardCharsets;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Messages and clocks for the supervisor's tests. */
final class Fixtures {
    static final String BUCKET = "eventindex";
    static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00";
    static final String CONTAINER = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    static final DatasetName NAME = DatasetName.parse(DATASET);

    private Fixtures() {
    }

    static final String TASK_ID = "12345678.G";

    /** The URL a producer of job {@code name} (a valid jobID) of task {@link #TASK_ID} writes to. */
    static String url(String name) {
        return "s3://rgw.example:7480/" + BUCKET + "/" + key(name);
    }

    /** The producer key of job {@code name} of task {@link #TASK_ID}, with a uuid derived from the name. */
    static String key(String name) {
        return ObjectKey.of(TASK_ID, name, uuid(name)).key();
    }

    static String uuid(String seed) {
        return UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8)).toString().replace("-", "");
    }

    static GuidInfo guid(String guid, int fileno, long nevents) {
        return new GuidInfo(guid, fileno, nevents, nevents, 1, 2, "f838", "physics_Main", "data17_13TeV",
                Map.of("327636", new EventRange(1, 1000)));
    }

    static ProducerInfo info(String dataset, String url, GuidInfo... guids) {
        long events = 0;
        for (GuidInfo g : guids) {
            events += g.nevents();
        }
        // The taskID, jobID and uuid the key was made of, so that the message passes the key check; a URL that is
        // not a producer key gets values it cannot match.
        ObjectKey k;
        try {
            k = ObjectKey.parse(S3ObjectUrl.parse(url).key());
        } catch (IllegalArgumentException e) {
            k = ObjectKey.of(TASK_ID, "4000001.1", uuid(url));
        }
        return new ProducerInfo(1000, 5000, "1", k.taskID(), k.jobID(), 10, 20, dataset, events, events,
                guids.length, k.uuid(), 30, url, List.of(guids));
    }

    static byte[] producerMessage(String id, ProducerInfo info) {
        return Json.write(new ProducerMessage(ProducerMessage.TYPE_OBJECT_STORED, 1_600_000_000_000L, id, info));
    }

    static DatasetManifest manifest(String dataset, ManifestFile... files) {
        return new DatasetManifest(DatasetManifest.TYPE, dataset, List.of(files));
    }

    static ManifestFile file(String guid, long nevents) {
        return new ManifestFile(guid, nevents);
    }

    static ConsumerReport done(String signalId, String dataset, long events) {
        return new ConsumerReport(ConsumerReport.TYPE, signalId, dataset, "consumer-1", ConsumerReport.DONE,
                "/eventindex/datasets/" + CONTAINER + "/" + dataset + ".parquet", events, events, 0, 2, 2000, 1500,
                null, 1_600_000_000_000L, false);
    }

    /** A transient FAILED report (HDFS, Kudu or S3 failed): retried with backoff. */
    static ConsumerReport failed(String signalId, String dataset, String reason) {
        return new ConsumerReport(ConsumerReport.TYPE, signalId, dataset, "consumer-1", ConsumerReport.FAILED,
                null, 0, 0, 0, 0, 0, 100, reason, 1_600_000_000_000L, false);
    }

    /** A permanent FAILED report (the signal or an object is wrong): not retried automatically. */
    static ConsumerReport failedPermanently(String signalId, String dataset, String reason) {
        return new ConsumerReport(ConsumerReport.TYPE, signalId, dataset, "consumer-1", ConsumerReport.FAILED,
                null, 0, 0, 0, 0, 0, 100, reason, 1_600_000_000_000L, true);
    }

    /**
     * An internal error of the consumer (an unexpected exception, a bug), sent as the consumer sends it: cause
     * {@code internal} and permanent, so that it is not retried.
     */
    static ConsumerReport failedInternally(String signalId, String dataset, String reason) {
        return new ConsumerReport(ConsumerReport.TYPE, signalId, dataset, "consumer-1", ConsumerReport.FAILED,
                null, 0, 0, 0, 0, 0, 100, reason, 1_600_000_000_000L, true, ConsumerReport.CAUSE_INTERNAL);
    }

    static Candidate candidate(String name, long seq, GuidInfo... guids) {
        return new Candidate(url(name), 1000, 0, seq, new ArrayList<>(List.of(guids)), "m-" + name);
    }
}
