package org.eventindex.supervisor;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fuzz targets for {@link MessageValidator}, which sees every body on the supervisor's queues. Contract: it never
 * throws; it returns a rejection with a reason and a detail, or a command whose every field the supervisor relies on
 * holds (dataset names parse, the object is in the configured bucket under the key of its own taskID, jobID and
 * uuid, GUIDs are present and distinct, counts are not negative and are the numbers the JSON carried).
 */
class MessageValidatorFuzzTest {
    private static final String BUCKET = "eventindex";
    private final MessageValidator validator = new MessageValidator(BUCKET);

    @FuzzTest(maxDuration = "30s")
    void producer(byte[] body) {
        if (body == null) {
            return; // Jazzer may pass null; a stream or message body never is
        }
        Inbound result = validator.producer(body, "broker-id");
        if (result instanceof Inbound.Rejected r) {
            checkRejection(r);
            return;
        }
        Inbound.ObjectStored stored = (Inbound.ObjectStored) result;
        assertFalse(stored.messageId() == null || stored.messageId().isBlank(), "message id");
        ProducerInfo info = stored.info();
        assertEquals(DatasetName.parse(info.inputDsName()), stored.dataset(), "parsed dataset name");
        assertEquals(BUCKET, S3ObjectUrl.parse(info.url()).bucket(), "bucket of " + info.url());
        assertEquals(ObjectKey.of(info.taskID(), info.jobID(), info.uuid()).key(), S3ObjectUrl.parse(info.url()).key(),
                "key of " + info.url());
        assertTrue(info.size() >= 0, "size");
        assertFalse(info.guids() == null || info.guids().isEmpty(), "GUID list");
        Set<String> seen = new HashSet<>();
        for (GuidInfo g : info.guids()) {
            assertNotNull(g, "GUID entry");
            assertFalse(g.guid() == null || g.guid().isBlank(), "GUID");
            assertTrue(seen.add(g.guid()), "GUID " + g.guid() + " twice");
            assertTrue(g.fileno() >= 0 && g.nevents() >= 0, "fileno and nevents of " + g.guid());
        }
    }

    @FuzzTest(maxDuration = "30s")
    void control(byte[] body) {
        if (body == null) {
            return; // Jazzer may pass null; a stream or message body never is
        }
        Inbound result = validator.control(body, "broker-id");
        if (result instanceof Inbound.Rejected r) {
            checkRejection(r);
        } else if (result instanceof Inbound.Manifest m) {
            assertEquals(DatasetName.parse(m.manifest().dataset()), m.dataset(), "parsed dataset name");
            List<ManifestFile> files = m.manifest().files();
            assertFalse(files.isEmpty(), "manifest files");
            JsonNode json = tree(body).get("files");
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < files.size(); i++) {
                ManifestFile f = files.get(i);
                assertFalse(f.guid() == null || f.guid().isBlank(), "GUID");
                assertTrue(seen.add(f.guid()), "GUID " + f.guid() + " twice");
                assertTrue(f.nevents() >= -1, "nevents of " + f.guid());
                JsonNode n = json.get(i).get("nevents");
                if (n != null && !n.isNull()) {
                    assertTrue(n.canConvertToLong() && n.asLong() == f.nevents(),
                            "nevents " + f.nevents() + " of " + f.guid() + " is not the JSON value " + n);
                }
            }
        } else if (result instanceof Inbound.Report r) {
            ConsumerReport report = r.report();
            assertFalse(report.signalId() == null || report.signalId().isBlank(), "signal id");
            assertTrue(ConsumerReport.DONE.equals(report.status()) || ConsumerReport.FAILED.equals(report.status()),
                    "status " + report.status());
        } else if (result instanceof Inbound.Resignal r) {
            assertNotNull(r.dataset(), "dataset");
        } else if (result instanceof Inbound.Invalidate i) {
            assertEquals(DatasetName.parse(i.command().dataset()), i.dataset(), "parsed dataset name");
            assertFalse(i.command().url().isBlank() || i.command().reason().isBlank(), "url and reason");
            assertNotNull(i.command().source(), "source");
        } else {
            fail("the control queue yielded " + result);
        }
    }

    private static void checkRejection(Inbound.Rejected r) {
        assertNotNull(r.rejection().reason(), "reason");
        assertFalse(r.rejection().detail().isBlank(), "detail of " + r.rejection().reason());
    }

    private static JsonNode tree(byte[] body) {
        try {
            return Json.tree(body);
        } catch (IOException e) {
            throw new AssertionError("an accepted body does not parse again", e);
        }
    }
}
