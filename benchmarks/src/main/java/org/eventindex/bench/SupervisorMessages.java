package org.eventindex.bench;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.ProducerMessage;
import org.eventindex.names.ObjectKey;

import java.util.List;
import java.util.Map;

/**
 * The messages the supervisor benchmarks send it, as the producer, the operator and the consumer write them: every
 * one passes the supervisor's validation (the object URL names the bucket, its key the task, job and uuid of the
 * message).
 */
public final class SupervisorMessages {
    /** The bucket every object URL names; the supervisor's {@code supervisor.s3.bucket}. */
    public static final String BUCKET = "eventindex";
    private static final String RUN = "327636";

    private SupervisorMessages() {
    }

    /**
     * An {@code object_stored} message of one producer run: one input file {@code fileGuid} of {@code events}
     * events, numbered from {@code firstEvent}, in the object {@code taskID/jobID/uuid}.
     */
    public static byte[] objectStored(String messageId, String dataset, String taskID, String jobID, String uuid,
                                      String fileGuid, long events, long firstEvent) {
        String url = "s3://s3.example:443/" + BUCKET + "/" + ObjectKey.of(taskID, jobID, uuid).key();
        GuidInfo g = new GuidInfo(fileGuid, 0, events, events, 1, 2, "f838", "physics_Main", "data17_13TeV",
                Map.of(RUN, new EventRange(firstEvent, firstEvent + events - 1)));
        ProducerInfo info = new ProducerInfo(40_000, 90_000, "1", taskID, jobID, 10, 20, dataset, events, events, 1,
                uuid, 30, url, List.of(g));
        return Json.write(new ProducerMessage(ProducerMessage.TYPE_OBJECT_STORED, System.currentTimeMillis(),
                messageId, info));
    }

    /** A dataset's manifest, as {@code register-manifest} sends it. */
    public static byte[] manifest(String dataset, List<DatasetManifest.ManifestFile> files) {
        return Json.write(new DatasetManifest(DatasetManifest.TYPE, dataset, files));
    }

    /** The consumer's DONE report for {@code signal}: every expected event loaded. */
    public static byte[] done(ConsumerSignal signal) {
        return Json.write(new ConsumerReport(ConsumerReport.TYPE, signal.signalId(), signal.dataset(), "consumer-1",
                ConsumerReport.DONE, "/eventindex/datasets/" + signal.dataset() + ".parquet", signal.expectedEvents(),
                signal.expectedEvents(), 0, 2, 2000, 1500, null, System.currentTimeMillis(), false));
    }
}
