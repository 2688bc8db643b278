package org.eventindex.message;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageJsonTest {

    /** Exactly the shape the experiment's producer sends (SPEC.md), plus fields we do not know. */
    private static final String PRODUCER_JSON = """
            {"type": 1, "ts": 1508412345678, "id": "9f1c2e3d4b5a69788796a5b4c3d2e1f0",
             "futureField": {"nested": [1, 2, 3]},
             "data": {"size": 3612345, "usize": 9876543, "version": "1", "taskID": "12345678.G",
               "jobID": "3671234567.2", "startProcTime": 1508412000123, "endProcTime": 1508412300456,
               "inputDsName": "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00",
               "nevents": 100, "nuevents": 99, "nfiles": 1, "uuid": "0c4f8d2e-7b1a-4c3e-9d5f-a1b2c3d4e5f6",
               "timestamp": 1508412345, "url": "s3://s3.cern.ch:443/atlas-eventindex/G/12345678/x.ei.spb",
               "unknownInfo": "ignored",
               "guids": [{"guid": "5F2B1D3C-0A9E-E711-8C4A-02163E01A2B3", "fileno": 0, "nevents": 100,
                  "nuevents": 99, "fileStartProcTime": 1508412000200, "fileEndProcTime": 1508412300400,
                  "AMITag": "f838_m1824", "trigStream": "physics_Main", "projName": "data17_13TeV",
                  "runevtRanges": {"327636": [1, 99]}}]}}
            """;

    @Test
    void parsesTheProducersMessage() throws IOException {
        ProducerMessage m = Json.read(PRODUCER_JSON.getBytes(StandardCharsets.UTF_8), ProducerMessage.class);
        assertEquals(ProducerMessage.TYPE_OBJECT_STORED, m.type());
        assertEquals(1508412345678L, m.ts());
        assertEquals("9f1c2e3d4b5a69788796a5b4c3d2e1f0", m.id());
        ProducerInfo d = m.data();
        assertEquals(3612345, d.size());
        assertEquals(9876543, d.usize());
        assertEquals("1", d.version());
        assertEquals("12345678.G", d.taskID());
        assertEquals("3671234567.2", d.jobID());
        assertEquals(1508412000123L, d.startProcTime());
        assertEquals(1508412300456L, d.endProcTime());
        assertEquals("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00", d.inputDsName());
        assertEquals(100, d.nevents());
        assertEquals(99, d.nuevents());
        assertEquals(1, d.nfiles());
        assertEquals("0c4f8d2e-7b1a-4c3e-9d5f-a1b2c3d4e5f6", d.uuid());
        assertEquals(1508412345, d.timestamp());
        assertEquals("s3://s3.cern.ch:443/atlas-eventindex/G/12345678/x.ei.spb", d.url());
        assertEquals(1, d.guids().size());
        GuidInfo g = d.guids().get(0);
        assertEquals("5F2B1D3C-0A9E-E711-8C4A-02163E01A2B3", g.guid());
        assertEquals(0, g.fileno());
        assertEquals(100, g.nevents());
        assertEquals(99, g.nuevents());
        assertEquals(1508412000200L, g.fileStartProcTime());
        assertEquals(1508412300400L, g.fileEndProcTime());
        assertEquals("f838_m1824", g.amiTag());
        assertEquals("physics_Main", g.trigStream());
        assertEquals("data17_13TeV", g.projName());
        assertEquals(Map.of("327636", new EventRange(1, 99)), g.runevtRanges());
        assertEquals("atlas-eventindex", S3ObjectUrl.parse(d.url()).bucket());
    }

    @Test
    void producerMessageRoundTripKeepsTheExperimentsFieldNames() throws IOException {
        ProducerMessage m = Json.read(PRODUCER_JSON.getBytes(StandardCharsets.UTF_8), ProducerMessage.class);
        byte[] json = Json.write(m);
        assertEquals(m, Json.read(json, ProducerMessage.class));
        JsonNode guid = Json.tree(json).get("data").get("guids").get(0);
        assertEquals("f838_m1824", guid.get("AMITag").asText());
        assertEquals(99, guid.get("runevtRanges").get("327636").get(1).asLong());
    }

    @Test
    void consumerSignalRoundTrip() throws IOException {
        ConsumerSignal s = new ConsumerSignal(ConsumerSignal.TYPE, "sig-1",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 42, 3,
                List.of(new SignalObject("s3://127.0.0.1:9000/ei/G/1/a.ei.spb", 1234,
                        List.of("5F2B1D3C-0A9E-E711-8C4A-02163E01A2B3"), 100)), 100, 1700000000000L);
        byte[] json = Json.write(s);
        assertEquals(s, Json.read(json, ConsumerSignal.class));
        assertEquals("consolidate", Json.tree(json).get("type").asText());
    }

    @Test
    void consumerReportRoundTrip() throws IOException {
        ConsumerReport done = new ConsumerReport(ConsumerReport.TYPE, "sig-1", "ds", "consumer-1",
                ConsumerReport.DONE, "/eventindex/ds/ds.parquet", 100, 100, 1, 2, 4096, 1500, null, 1L, false);
        assertEquals(done, Json.read(Json.write(done), ConsumerReport.class));
        ConsumerReport failed = new ConsumerReport(ConsumerReport.TYPE, "sig-2", "ds", "consumer-1",
                ConsumerReport.FAILED, null, 0, 0, 0, 1, 0, 5, "object s3://h:1/b/k is missing", 2L, true);
        assertEquals(failed, Json.read(Json.write(failed), ConsumerReport.class));
        assertTrue(Json.tree(Json.write(failed)).get("permanent").asBoolean());
    }

    @Test
    void aReportWithoutPermanentIsTransient() throws IOException {
        // as consumers sent it before the field existed
        String old = "{\"type\":\"report\",\"signalId\":\"sig-3\",\"dataset\":\"ds\",\"consumer\":\"c\","
                + "\"status\":\"FAILED\",\"reason\":\"HDFS is down\",\"ts\":3}";
        ConsumerReport r = Json.read(old.getBytes(StandardCharsets.UTF_8), ConsumerReport.class);
        assertEquals(ConsumerReport.FAILED, r.status());
        assertFalse(r.permanent());
    }

    @Test
    void datasetManifestRoundTrip() throws IOException {
        DatasetManifest m = new DatasetManifest(DatasetManifest.TYPE, "ds", List.of(
                new DatasetManifest.ManifestFile("5F2B1D3C-0A9E-E711-8C4A-02163E01A2B3", 100),
                new DatasetManifest.ManifestFile("11111111-2222-3333-4444-555555555555", -1)));
        assertEquals(m, Json.read(Json.write(m), DatasetManifest.class));
    }

    /** Event numbers are uint64: the experiment's producer writes them as unsigned decimals, up to 2^64 - 1. */
    @Test
    void eventNumbersOf2To63AndAboveAreReadAndWrittenAsUnsignedDecimals() throws IOException {
        String json = PRODUCER_JSON.replace("\"runevtRanges\": {\"327636\": [1, 99]}",
                "\"runevtRanges\": {\"327636\": [9223372036854776007, 18446744073709551615], \"327637\": [0, 5]}");
        ProducerMessage m = Json.read(json.getBytes(StandardCharsets.UTF_8), ProducerMessage.class);
        EventRange r = m.data().guids().get(0).runevtRanges().get("327636");
        assertEquals(Long.parseUnsignedLong("9223372036854776007"), r.min());
        assertEquals(-1L, r.max(), "2^64 - 1: every bit set");
        assertEquals("[9223372036854776007, 18446744073709551615]", r.toString());
        assertEquals(new EventRange(0, 5), m.data().guids().get(0).runevtRanges().get("327637"));

        byte[] written = Json.write(m);
        JsonNode range = Json.tree(written).get("data").get("guids").get(0).get("runevtRanges").get("327636");
        assertEquals("[9223372036854776007,18446744073709551615]", range.toString(), "unsigned decimals");
        assertEquals(m, Json.read(written, ProducerMessage.class));
        assertEquals(m, Json.mapper().treeToValue(Json.tree(written), ProducerMessage.class), "through a JSON tree");
    }

    /** Earlier producers of this project wrote the 64 bits as a signed long; journals may hold that form. */
    @Test
    void theOlderSignedFormReadsAsItsUnsignedValue() throws IOException {
        String json = PRODUCER_JSON.replace("[1, 99]", "[-9223372036854775789, 9223372036854775788]");
        EventRange r = Json.read(json.getBytes(StandardCharsets.UTF_8), ProducerMessage.class).data().guids().get(0)
                .runevtRanges().get("327636");
        assertEquals("[9223372036854775827, 9223372036854775788]", r.toString());
    }

    @Test
    void anEventRangeThatIsNotTwoUint64sIsRefusedNamingTheRun() {
        for (String bad : List.of("[1, 18446744073709551616]", "[-9223372036854775809, 1]", "[1]", "[1, 2, 3]",
                "[1.5, 2]", "\"1-2\"")) {
            String json = PRODUCER_JSON.replace("[1, 99]", bad);
            IOException e = assertThrows(IOException.class,
                    () -> Json.read(json.getBytes(StandardCharsets.UTF_8), ProducerMessage.class), bad);
            assertTrue(e.getMessage().contains("event range of run 327636"), bad + ": " + e.getMessage());
        }
    }

    @Test
    void malformedJsonIsAnIOException() {
        assertThrows(IOException.class,
                () -> Json.read("{\"type\": 1, \"data\": ".getBytes(StandardCharsets.UTF_8), ProducerMessage.class));
    }
}
