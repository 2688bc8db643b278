package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.Json;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisor's readers of versioned messages and checkpoints (decision 0055): a document without a version (release
 * 0.1.0), of this version, of this version with fields it does not know (ignored), and of a newer version (refused
 * with both versions and what to do).
 */
class FormatVersionReadersTest {
    private final MessageValidator validator = new MessageValidator(Fixtures.BUCKET);

    /** Every message the supervisor reads from consumers and operators, as this build writes it. */
    private static List<Object> messages() {
        return List.of(Fixtures.manifest(DATASET, new ManifestFile("G1", 10)), Fixtures.done("sig-1", DATASET, 10),
                ResignalCommand.of(DATASET), InvalidateCommand.of(DATASET, Fixtures.url("a"), "truncated", "c1"),
                DeleteCommand.of(DATASET, "test"), ConsumerHeartbeat.idle("c1", "0.2.0", 30_000, 1000));
    }

    private Inbound read(ObjectNode message) {
        byte[] body = Json.write(message);
        return ConsumerHeartbeat.TYPE.equals(message.get("type").asText()) ? validator.heartbeat(body, "b-1")
                : validator.control(body, "b-1");
    }

    private static ObjectNode tree(Object message) throws IOException {
        return (ObjectNode) Json.tree(Json.write(message));
    }

    @Test
    void thisBuildWritesVersion1OnEveryMessage() throws IOException {
        for (Object m : messages()) {
            assertEquals(1, tree(m).get("v").asInt(), m.toString());
        }
        assertEquals(1, tree(OperatorAnswer.ok("r", DATASET, "done")).get("v").asInt());
    }

    @Test
    void messagesWithoutAVersionAsOfRelease010AreRead() throws IOException {
        for (Object m : messages()) {
            ObjectNode old = tree(m);
            old.remove("v");
            assertAccepted(old);
        }
    }

    @Test
    void messagesOfThisVersionWithFieldsItDoesNotKnowAreRead() throws IOException {
        for (Object m : messages()) {
            ObjectNode same = tree(m);
            same.put("operator", "alice@EXAMPLE.ORG");
            same.putObject("future").put("anything", 1);
            assertAccepted(same);
        }
    }

    @Test
    void messagesOfANewerVersionAreRefusedWithBothVersionsAndWhatToDo() throws IOException {
        for (Object m : messages()) {
            ObjectNode newer = tree(m);
            newer.put("v", 2);
            Rejection r = assertInstanceOf(Inbound.Rejected.class, read(newer), m.toString()).rejection();
            assertEquals(RejectReason.NEWER_FORMAT, r.reason(), r.detail());
            assertTrue(r.detail().contains("of type '" + newer.get("type").asText() + "'") || r.detail()
                    .startsWith("heartbeat b-1 of consumer c1"), r.detail());
            assertTrue(r.detail().contains("has format version 2; this supervisor (eventindex "), r.detail());
            assertTrue(r.detail().contains("reads format versions up to 1: it was written by a newer release; upgrade"
                    + " this supervisor to the writer's release or later (docs/compatibility.md)"), r.detail());
        }
        Rejection unknownType = assertInstanceOf(Inbound.Rejected.class, validator.control(
                "{\"v\":2,\"type\":\"pause\",\"dataset\":\"x\"}".getBytes(StandardCharsets.UTF_8), "b-1")).rejection();
        assertEquals(RejectReason.NEWER_FORMAT, unknownType.reason(), unknownType.detail());
        Rejection notAVersion = assertInstanceOf(Inbound.Rejected.class, validator.control(
                "{\"v\":\"2.0\",\"type\":\"resignal\",\"dataset\":\"x\"}".getBytes(StandardCharsets.UTF_8), "b-1"))
                .rejection();
        assertEquals(RejectReason.INVALID_VALUE, notAVersion.reason(), notAVersion.detail());
        assertEquals(OperatorAnswer.BAD_REQUEST.equals(OperatorAnswer.refused("r", unknownType).outcome()), false,
                "an operator is told to upgrade, not that the request is malformed");
        assertEquals("NEWER_FORMAT", OperatorAnswer.refused("r", unknownType).outcome());
    }

    private void assertAccepted(ObjectNode message) {
        Inbound in = read(message);
        assertTrue(!(in instanceof Inbound.Rejected), message + " was refused: " + in);
    }

    // checkpoints: the body's "format" and the trailer's "checkpoint" are their versions

    private static String checkpoint(Function<ObjectNode, ObjectNode> edit) throws IOException {
        StateCheckpoint empty = new StateCheckpoint(StateCheckpoint.FORMAT, 7, 0, 0, 0, 0, 0, java.util.Map.of(),
                List.of(), List.of(), List.of(), List.of(), null, null);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        empty.writeTo(out);
        ObjectNode doc = (ObjectNode) Json.tree(out.toByteArray());
        assertEquals("format", doc.fieldNames().next(), "the format leads the document");
        return Json.mapper().writeValueAsString(edit.apply(doc));
    }

    private static StateCheckpoint readCheckpoint(String body) throws IOException {
        return StateCheckpoint.readFrom(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void checkpointsOfThisFormatAreReadWithFieldsTheyDoNotKnowAndWithoutTheLaterOnes() throws IOException {
        assertEquals(7, readCheckpoint(checkpoint(d -> d)).seq());
        assertEquals(7, readCheckpoint(checkpoint(d -> {
            d.put("rebuiltFrom", "bucket");
            d.remove(List.of("deleted", "answers", "history")); // written by 0.1.0's predecessors without them
            return d;
        })).seq());
    }

    @Test
    void checkpointsOfANewerFormatAreRefusedWithBothVersionsBeforeTheirContentIsMapped() throws IOException {
        String newer = checkpoint(d -> {
            d.put("format", 2);
            d.put("datasets", "a shape this supervisor does not know");
            return d;
        });
        IOException e = assertThrows(IOException.class, () -> readCheckpoint(newer));
        assertTrue(e.getMessage().startsWith("supervisor checkpoint has format version 2; this supervisor (eventindex "),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("reads format versions up to 1: it was written by a newer release; upgrade"
                + " this supervisor to the writer's release or later (docs/compatibility.md)"), e.getMessage());
    }
}
