package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.EventRange;
import org.eventindex.message.Json;
import org.eventindex.names.ObjectKey;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

import static org.eventindex.supervisor.Fixtures.BUCKET;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.NAME;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.key;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageValidatorTest {
    private final MessageValidator validator = new MessageValidator(BUCKET);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A valid producer message changed by {@code edit} (on its JSON tree; "data" and "data.guids[0]" are handy). */
    private static byte[] producerWith(Consumer<ObjectNode> edit) {
        try {
            ObjectNode root = (ObjectNode) Json.tree(producerMessage("id-1", info(DATASET, url("a"), guid("G1", 0, 10))));
            edit.accept(root);
            return Json.mapper().writeValueAsBytes(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode data(ObjectNode root) {
        return (ObjectNode) root.get("data");
    }

    private static ObjectNode firstGuid(ObjectNode root) {
        return (ObjectNode) root.get("data").get("guids").get(0);
    }

    private Rejection rejectedProducer(byte[] body) {
        return assertInstanceOf(Inbound.Rejected.class, validator.producer(body, "broker-1")).rejection();
    }

    private Rejection rejectedControl(byte[] body) {
        return assertInstanceOf(Inbound.Rejected.class, validator.control(body, "broker-2")).rejection();
    }

    private static void assertReason(RejectReason reason, String detailPart, Rejection r) {
        assertEquals(reason, r.reason(), r.detail());
        assertTrue(r.detail().contains(detailPart), "'" + r.detail() + "' should mention '" + detailPart + "'");
    }

    @Test
    void validProducerMessageIsAccepted() {
        Inbound in = validator.producer(producerMessage("id-1", info(DATASET, url("a"), guid("G1", 0, 10))), "b");
        Inbound.ObjectStored o = assertInstanceOf(Inbound.ObjectStored.class, in);
        assertEquals("id-1", o.messageId());
        assertEquals(DATASET, o.info().inputDsName());
        assertEquals(10, o.info().guids().get(0).nevents());
    }

    /** Event numbers are uint64, written as unsigned decimals by the experiment's producer (issue 19). */
    @Test
    void eventNumbersOf2To63AndAboveAreAccepted() {
        byte[] body = producerWith(root -> firstGuid(root).set("runevtRanges", Json.mapper().createObjectNode()
                .set("327636", Json.mapper().createArrayNode().add(new BigInteger("9223372036854776007"))
                        .add(new BigInteger("18446744073709551615")))));
        assertTrue(new String(body, StandardCharsets.UTF_8).contains("[9223372036854776007,18446744073709551615]"));
        Inbound.ObjectStored o = assertInstanceOf(Inbound.ObjectStored.class, validator.producer(body, "b"));
        EventRange r = o.info().guids().get(0).runevtRanges().get("327636");
        assertEquals(Long.parseUnsignedLong("9223372036854776007"), r.min());
        assertEquals(Long.parseUnsignedLong("18446744073709551615"), r.max());
    }

    @Test
    void anEventNumberBeyondUint64IsRefusedNamingTheRunAndTheObject() {
        byte[] body = producerWith(root -> firstGuid(root).set("runevtRanges", Json.mapper().createObjectNode()
                .set("327636", Json.mapper().createArrayNode().add(1).add(new BigInteger("18446744073709551616")))));
        Rejection r = rejectedProducer(body);
        assertReason(RejectReason.BAD_JSON, "event range of run 327636: event number 18446744073709551616 is not a"
                + " uint64", r);
        assertTrue(r.detail().contains(url("a")), r.detail());
    }

    @Test
    void producerMessageThatIsNotJson() {
        Rejection r = rejectedProducer(bytes("{\"type\": 1, "));
        assertReason(RejectReason.BAD_JSON, "not JSON", r);
        assertEquals("broker-1", r.messageId());
        assertReason(RejectReason.BAD_JSON, "not a JSON object", rejectedProducer(bytes("[1,2]")));
    }

    @Test
    void producerMessageOfAnotherType() {
        assertReason(RejectReason.WRONG_TYPE, "type is 2", rejectedProducer(producerWith(m -> m.put("type", 2))));
        assertReason(RejectReason.WRONG_TYPE, "type is \"1\"", rejectedProducer(producerWith(m -> m.put("type", "1"))));
        assertReason(RejectReason.MISSING_FIELD, "'type'", rejectedProducer(producerWith(m -> m.remove("type"))));
    }

    @Test
    void producerMessageWithMissingFields() {
        assertReason(RejectReason.MISSING_FIELD, "'id'", rejectedProducer(producerWith(m -> m.put("id", ""))));
        assertReason(RejectReason.MISSING_FIELD, "'data'", rejectedProducer(bytes("{\"type\":1,\"id\":\"x\"}")));
        assertReason(RejectReason.MISSING_FIELD, "data.inputDsName",
                rejectedProducer(producerWith(m -> data(m).putNull("inputDsName"))));
        assertReason(RejectReason.MISSING_FIELD, "data.url", rejectedProducer(producerWith(m -> data(m).remove("url"))));
        assertReason(RejectReason.MISSING_FIELD, "data.guids", rejectedProducer(producerWith(m -> data(m).putArray("guids"))));
        assertReason(RejectReason.MISSING_FIELD, "data.size", rejectedProducer(producerWith(m -> data(m).remove("size"))));
        assertReason(RejectReason.MISSING_FIELD, "data.guids[0].nevents",
                rejectedProducer(producerWith(m -> firstGuid(m).remove("nevents"))));
    }

    @Test
    void producerMessageWithInvalidValues() {
        Rejection r = rejectedProducer(producerWith(m -> firstGuid(m).put("nevents", -3)));
        assertReason(RejectReason.INVALID_VALUE, "GUID G1", r);
        assertEquals(DATASET, r.dataset());
        assertEquals("id-1", r.messageId());
        assertReason(RejectReason.BAD_JSON, "not an integer",
                rejectedProducer(producerWith(m -> firstGuid(m).put("fileno", "zero"))));
    }

    @Test
    void producerMessageWithAnInvalidDatasetName() {
        Rejection r = rejectedProducer(producerWith(m -> data(m).put("inputDsName", "not-a-dataset")));
        assertReason(RejectReason.INVALID_DATASET_NAME, "not-a-dataset", r);
    }

    @Test
    void producerMessageWithABadOrForeignUrl() {
        assertReason(RejectReason.BAD_URL, "must start with s3://",
                rejectedProducer(producerWith(m -> data(m).put("url", "http://h:1/eventindex/k"))));
        assertReason(RejectReason.BAD_URL, "host:port",
                rejectedProducer(producerWith(m -> data(m).put("url", "s3://h/eventindex/k"))));
        Rejection r = rejectedProducer(producerWith(m -> data(m).put("url", "s3://h:1/otherbucket/k")));
        assertReason(RejectReason.WRONG_BUCKET, "otherbucket", r);
        assertTrue(r.detail().contains("s3://h:1/otherbucket/k"), r.detail());
        assertReason(RejectReason.BAD_URL, "'..' path segment",
                rejectedProducer(producerWith(m -> data(m).put("url", "s3://h:1/eventindex/X/../../otherbucket/k"))));
        assertReason(RejectReason.BAD_URL, "is not a URI",
                rejectedProducer(producerWith(m -> data(m).put("url", "s3://h:1/eventindex/X\\..\\k"))));
    }

    @Test
    void producerMessageWhoseKeyIsNotTheKeyOfItsOwnTaskJobAndUuid() {
        String own = key("a");
        String[] foreign = {
            ObjectKey.of("87654321.G", "a", Fixtures.uuid("a")).key(), // another task's prefix
            ObjectKey.of(Fixtures.TASK_ID, "b", Fixtures.uuid("a")).key(), // another job of the same task
            ObjectKey.of(Fixtures.TASK_ID, "a", Fixtures.uuid("b")).key(), // another run of the same job
            "test/12345678/" + own.substring(own.lastIndexOf('/') + 1), // the right file name in another flavor
            own.replace(".ei.spb", ".ei.spb.old"),
            "k"};
        for (String key : foreign) {
            String url = "s3://rgw.example:7480/" + BUCKET + "/" + key;
            Rejection r = rejectedProducer(producerWith(m -> data(m).put("url", url)));
            assertReason(RejectReason.WRONG_KEY, "expected " + own, r);
            assertTrue(r.detail().contains("message id-1") && r.detail().contains(url), r.detail());
            assertEquals("id-1", r.messageId());
            assertEquals(DATASET, r.dataset());
        }
        // The fields the key is made of must be there and valid.
        assertReason(RejectReason.MISSING_FIELD, "'data.uuid'",
                rejectedProducer(producerWith(m -> data(m).remove("uuid"))));
        assertReason(RejectReason.MISSING_FIELD, "'data.taskID'",
                rejectedProducer(producerWith(m -> data(m).put("taskID", ""))));
        assertReason(RejectReason.INVALID_VALUE, "jobID '../x'",
                rejectedProducer(producerWith(m -> data(m).put("jobID", "../x"))));
        assertReason(RejectReason.INVALID_VALUE, "uuid 'ABC'",
                rejectedProducer(producerWith(m -> data(m).put("uuid", "ABC"))));
        // Changing the fields instead of the URL is just as wrong.
        assertReason(RejectReason.WRONG_KEY, "expected " + ObjectKey.of(Fixtures.TASK_ID, "zz", Fixtures.uuid("a")),
                rejectedProducer(producerWith(m -> data(m).put("jobID", "zz"))));
    }

    @Test
    void producerMessageOnAnotherEndpointThanTheConfiguredOne() {
        MessageValidator pinned = MessageValidator.forEndpoint(BUCKET, "http://RGW.example:7480");
        byte[] onOtherHost = producerWith(m -> data(m).put("url", "s3://evil.example:7480/" + BUCKET + "/" + key("a")));
        byte[] onOtherPort = producerWith(m -> data(m).put("url", "s3://rgw.example:7481/" + BUCKET + "/" + key("a")));
        for (byte[] body : List.of(onOtherHost, onOtherPort)) {
            Rejection r = assertInstanceOf(Inbound.Rejected.class, pinned.producer(body, "m")).rejection();
            assertReason(RejectReason.WRONG_ENDPOINT, "rgw.example:7480", r);
        }
        assertInstanceOf(Inbound.ObjectStored.class, pinned.producer(
                producerWith(m -> data(m).put("url", "s3://rgw.example:7480/" + BUCKET + "/" + key("a"))), "m"));
        // The scheme's default port counts when the endpoint names none.
        assertInstanceOf(Inbound.ObjectStored.class, MessageValidator.forEndpoint(BUCKET, "https://rgw.example")
                .producer(producerWith(m -> data(m).put("url", "s3://rgw.example:443/" + BUCKET + "/" + key("a"))), "m"));
        // No endpoint configured: any host:port in the right bucket passes.
        assertInstanceOf(Inbound.ObjectStored.class, MessageValidator.forEndpoint(BUCKET, "")
                .producer(onOtherHost, "m"));
    }

    @Test
    void producerMessageListingAGuidTwice() {
        byte[] body = producerMessage("id-1", info(DATASET, url("a"), guid("G1", 0, 10), guid("G1", 1, 10)));
        assertReason(RejectReason.DUPLICATE_GUID, "G1", rejectedProducer(body));
    }

    @Test
    void manifestIsNormalisedAndChecked() {
        Inbound in = validator.control(bytes("{\"type\":\"manifest\",\"dataset\":\"" + DATASET
                + "\",\"files\":[{\"guid\":\"G1\",\"nevents\":10},{\"guid\":\"G2\"}]}"), "b");
        DatasetManifest m = assertInstanceOf(Inbound.Manifest.class, in).manifest();
        assertEquals(List.of(file("G1", 10), file("G2", -1)), m.files());

        assertReason(RejectReason.MISSING_FIELD, "'files'",
                rejectedControl(Json.write(new DatasetManifest("manifest", DATASET, List.of()))));
        assertReason(RejectReason.INVALID_DATASET_NAME, "a.b",
                rejectedControl(Json.write(manifest("a.b", file("G1", 1)))));
        assertReason(RejectReason.DUPLICATE_GUID, "G1",
                rejectedControl(Json.write(manifest(DATASET, file("G1", 1), file("G1", 1)))));
        assertReason(RejectReason.INVALID_VALUE, "G1",
                rejectedControl(Json.write(manifest(DATASET, file("G1", -2)))));
        assertReason(RejectReason.MISSING_FIELD, "files[0].guid",
                rejectedControl(Json.write(manifest(DATASET, file("", 1)))));
    }

    /** Found by MessageValidatorFuzzTest: 2^64 + 60 used to be read as 60 (Jackson's asLong keeps the low bits). */
    @Test
    void manifestEventCountBeyondALongIsRefusedNotTruncated() {
        byte[] body = bytes("{\"type\":\"manifest\",\"dataset\":\"" + DATASET
                + "\",\"files\":[{\"guid\":\"G1\",\"nevents\":18446744073709551676}]}");
        assertReason(RejectReason.INVALID_VALUE, "18446744073709551676", rejectedControl(body));
    }

    @Test
    void reportsNeedASignalIdAndAKnownStatus() {
        ConsumerReport ok = Fixtures.done("sig-1", DATASET, 10);
        assertEquals(ok, assertInstanceOf(Inbound.Report.class, validator.control(Json.write(ok), "b")).report());

        ConsumerReport noId = new ConsumerReport("report", "", DATASET, "c", "DONE", null, 0, 0, 0, 0, 0, 0, null, 0, false);
        assertReason(RejectReason.MISSING_FIELD, "signalId", rejectedControl(Json.write(noId)));
        ConsumerReport odd = new ConsumerReport("report", "s", DATASET, "c", "MAYBE", null, 0, 0, 0, 0, 0, 0, null, 0, false);
        assertReason(RejectReason.INVALID_VALUE, "MAYBE", rejectedControl(Json.write(odd)));
    }

    @Test
    void controlMessagesOfUnknownTypeOrWithoutType() {
        assertReason(RejectReason.WRONG_TYPE, "'consolidate'", rejectedControl(bytes("{\"type\":\"consolidate\"}")));
        assertReason(RejectReason.MISSING_FIELD, "'type'", rejectedControl(bytes("{\"dataset\":\"x\"}")));
        assertReason(RejectReason.BAD_JSON, "not JSON", rejectedControl(bytes("\u0000\u0001")));
    }

    @Test
    void resignalCommandNeedsAValidDataset() {
        assertEquals(NAME, assertInstanceOf(Inbound.Resignal.class,
                validator.control(Json.write(ResignalCommand.of(DATASET)), "b")).dataset());
        assertReason(RejectReason.MISSING_FIELD, "'dataset'", rejectedControl(bytes("{\"type\":\"resignal\"}")));
    }

    @Test
    void heartbeatsAreCheckedFieldByField() {
        ConsumerHeartbeat idle = ConsumerHeartbeat.idle("c1", "0.1.0", 30_000, 1000);
        assertEquals(idle, assertInstanceOf(Inbound.Heartbeat.class, validator.heartbeat(Json.write(idle), "b"))
                .heartbeat());
        ConsumerHeartbeat busy = ConsumerHeartbeat.busy("c1", DATASET, "s1", 3, -1, 0, 900, "0.1.0", 30_000, 1000);
        assertEquals(busy, assertInstanceOf(Inbound.Heartbeat.class, validator.heartbeat(Json.write(busy), "b"))
                .heartbeat());

        assertReason(RejectReason.MISSING_FIELD, "'consumer'", rejectedHeartbeat(bytes(
                "{\"type\":\"heartbeat\",\"state\":\"idle\",\"ts\":1,\"intervalMillis\":30000}")));
        assertReason(RejectReason.INVALID_VALUE, "longer than 255", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.idle("c".repeat(256), "1", 30_000, 1))));
        assertReason(RejectReason.MISSING_FIELD, "heartbeat of consumer c1: state is 'null'", rejectedHeartbeat(bytes(
                "{\"type\":\"heartbeat\",\"consumer\":\"c1\",\"ts\":1,\"intervalMillis\":30000}")));
        assertReason(RejectReason.INVALID_VALUE, "state is 'asleep'", rejectedHeartbeat(Json.write(
                new ConsumerHeartbeat("heartbeat", "c1", "asleep", null, null, 0, 0, null, 0, "1", 30_000, 1))));
        assertReason(RejectReason.MISSING_FIELD, "'ts'", rejectedHeartbeat(bytes(
                "{\"type\":\"heartbeat\",\"consumer\":\"c1\",\"state\":\"idle\",\"intervalMillis\":30000}")));
        assertReason(RejectReason.BAD_JSON, "'intervalMillis' is \"30s\"", rejectedHeartbeat(bytes(
                "{\"type\":\"heartbeat\",\"consumer\":\"c1\",\"state\":\"idle\",\"ts\":1,"
                        + "\"intervalMillis\":\"30s\"}")));
        assertReason(RejectReason.INVALID_VALUE, "intervalMillis is 999", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.idle("c1", "1", 999, 1))));
        assertReason(RejectReason.INVALID_VALUE, "intervalMillis is 3600001", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.idle("c1", "1", 3_600_001, 1))));
        assertReason(RejectReason.MISSING_FIELD, "'dataset'", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.busy("c1", null, "s1", 3, 0, 0, 1, "1", 30_000, 1))));
        assertReason(RejectReason.INVALID_DATASET_NAME, "'a.b'", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.busy("c1", "a.b", "s1", 3, 0, 0, 1, "1", 30_000, 1))));
        assertReason(RejectReason.INVALID_VALUE, "'objects' is -2", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.busy("c1", DATASET, "s1", -2, 0, 0, 1, "1", 30_000, 1))));
        assertReason(RejectReason.INVALID_VALUE, "objectsRead is -2", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.busy("c1", DATASET, "s1", 3, -2, 0, 1, "1", 30_000, 1))));
        assertReason(RejectReason.INVALID_VALUE, "progress is -1", rejectedHeartbeat(Json.write(
                ConsumerHeartbeat.busy("c1", DATASET, "s1", 3, 0, -1, 1, "1", 30_000, 1))));
        assertReason(RejectReason.INVALID_VALUE, "progress is \"many\"", rejectedHeartbeat(bytes(
                "{\"type\":\"heartbeat\",\"consumer\":\"c1\",\"state\":\"busy\",\"dataset\":\"" + DATASET
                        + "\",\"signalId\":\"s1\",\"objects\":3,\"progress\":\"many\",\"ts\":1,"
                        + "\"intervalMillis\":30000}")));
        // a consumer older than the field sends none: valid, progress null (the lease counts from the send)
        Inbound older = validator.heartbeat(bytes("{\"type\":\"heartbeat\",\"consumer\":\"c1\",\"state\":"
                + "\"busy\",\"dataset\":\"" + DATASET + "\",\"signalId\":\"s1\",\"objects\":3,\"objectsRead\":1,"
                + "\"busySince\":1,\"version\":\"0.9\",\"ts\":1,\"intervalMillis\":30000}"), "b");
        assertNull(assertInstanceOf(Inbound.Heartbeat.class, older).heartbeat().progress());
        assertReason(RejectReason.WRONG_TYPE, "the heartbeat queue takes only type 'heartbeat'",
                rejectedHeartbeat(Json.write(Fixtures.done("sig-1", DATASET, 10))));
        assertReason(RejectReason.BAD_JSON, "not JSON", rejectedHeartbeat(bytes("{")));
        assertReason(RejectReason.WRONG_TYPE, "'heartbeat' is not one of", rejectedControl(Json.write(idle)));
    }

    private Rejection rejectedHeartbeat(byte[] body) {
        return assertInstanceOf(Inbound.Rejected.class, validator.heartbeat(body, "b")).rejection();
    }
}
