package org.eventindex.consumer;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.eventindex.message.SignalFile;
import org.eventindex.message.EventRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SignalValidatorTest {
    private static final String BASE = "s3://s3.example:7480/eventindex/X/12345678/";
    private final SignalValidator validator = new SignalValidator("S3.example", 7480, "eventindex");

    private static SignalObject object(String key, long events, String... guids) {
        return new SignalObject(BASE + key, 1000, Arrays.asList(guids), events);
    }

    private static ConsumerSignal signal(List<SignalObject> objects) {
        long total = objects.stream().mapToLong(SignalObject::expectedEvents).sum();
        return new ConsumerSignal(ConsumerSignal.TYPE, "sig-1", DATASET, CONTAINER, 7, 3, objects, total, 1L);
    }

    private static ConsumerSignal good() {
        return signal(List.of(object("a.ei.spb", 10, "G1", "G2"), object("b.ei.spb", 5, "G3")));
    }

    private void assertRejected(ConsumerSignal s, String expectedPart) {
        ConsumeException e = assertThrows(ConsumeException.class, () -> validator.validate(s));
        assertTrue(e.getMessage().contains(expectedPart), () -> "'" + e.getMessage() + "' lacks '" + expectedPart + "'");
        assertTrue(e.getMessage().contains("signal " + s.signalId()), e.getMessage());
    }

    private static ConsumerSignal with(UnaryOperator<List<SignalObject>> change) {
        return signal(change.apply(new ArrayList<>(good().objects())));
    }

    @Test
    void acceptsAWellFormedSignalKeepingObjectOrder() throws ConsumeException {
        ValidSignal v = validator.validate(good());
        assertEquals(CONTAINER, v.name().container());
        assertEquals(2, v.objects().size());
        assertEquals("X/12345678/a.ei.spb", v.objects().get(0).url().key());
        assertEquals(0, v.objects().get(0).index());
        assertEquals(1, v.objects().get(1).index());
        assertTrue(v.objects().get(0).guids().containsAll(List.of("G1", "G2")));
    }

    @Test
    void refusesMissingSignalId() {
        ConsumerSignal g = good();
        ConsumerSignal s = new ConsumerSignal(g.type(), " ", g.dataset(), g.container(), 7, 3, g.objects(),
                g.expectedEvents(), 1L);
        ConsumeException e = assertThrows(ConsumeException.class, () -> validator.validate(s));
        assertTrue(e.getMessage().contains("signalId is missing"), e.getMessage());
    }

    @Test
    void refusesAnotherMessageType() {
        ConsumerSignal g = good();
        assertRejected(new ConsumerSignal("report", "sig-1", g.dataset(), g.container(), 7, 3, g.objects(),
                g.expectedEvents(), 1L), "type is 'report'");
    }

    @Test
    void refusesAnUnparsableDatasetName() {
        ConsumerSignal g = good();
        assertRejected(new ConsumerSignal(g.type(), "sig-1", "not/a/dataset", g.container(), 7, 3, g.objects(),
                g.expectedEvents(), 1L), "dataset name is invalid");
        assertRejected(new ConsumerSignal(g.type(), "sig-1", null, g.container(), 7, 3, g.objects(),
                g.expectedEvents(), 1L), "dataset name is invalid");
    }

    @Test
    void refusesAContainerThatIsNotTheDatasets() {
        ConsumerSignal g = good();
        assertRejected(new ConsumerSignal(g.type(), "sig-1", g.dataset(), DATASET, 7, 3, g.objects(),
                g.expectedEvents(), 1L), "is not the dataset's container '" + CONTAINER + "'");
        assertRejected(new ConsumerSignal(g.type(), "sig-1", g.dataset(), "../etc", 7, 3, g.objects(),
                g.expectedEvents(), 1L), "container '../etc'");
    }

    @Test
    void refusesNegativeIds() {
        ConsumerSignal g = good();
        assertRejected(new ConsumerSignal(g.type(), "sig-1", g.dataset(), g.container(), -1, 3, g.objects(),
                g.expectedEvents(), 1L), "dspid -1");
        assertRejected(new ConsumerSignal(g.type(), "sig-1", g.dataset(), g.container(), 7, -2, g.objects(),
                g.expectedEvents(), 1L), "epoch -2");
    }

    @Test
    void refusesNoObjects() {
        assertRejected(signal(List.of()), "lists no objects");
        ConsumerSignal g = good();
        assertRejected(new ConsumerSignal(g.type(), "sig-1", g.dataset(), g.container(), 7, 3, null, 0, 1L),
                "lists no objects");
    }

    @Test
    void refusesUnparsableObjectUrls() {
        assertRejected(with(l -> {
            l.set(1, new SignalObject("http://s3.example:7480/eventindex/k", 1, List.of("G3"), 5));
            return l;
        }), "object #1");
        assertRejected(with(l -> {
            l.set(0, new SignalObject(null, 1, List.of("G1"), 10));
            return l;
        }), "object #0: object URL is missing");
    }

    @Test
    void refusesObjectsOnAnotherEndpointOrBucket() {
        assertRejected(with(l -> {
            l.set(1, new SignalObject("s3://other.example:7480/eventindex/k", 1, List.of("G3"), 5));
            return l;
        }), "is not on the configured S3 endpoint s3.example:7480");
        assertRejected(with(l -> {
            l.set(1, new SignalObject("s3://s3.example:9000/eventindex/k", 1, List.of("G3"), 5));
            return l;
        }), "is not on the configured S3 endpoint");
        assertRejected(with(l -> {
            l.set(1, new SignalObject("s3://s3.example:7480/other/k", 1, List.of("G3"), 5));
            return l;
        }), "is not in the configured bucket 'eventindex'");
    }

    @Test
    void refusesAnObjectListedTwice() {
        assertRejected(with(l -> {
            l.set(1, new SignalObject(BASE + "a.ei.spb", 1, List.of("G3"), 5));
            return l;
        }), "object " + BASE + "a.ei.spb is listed twice");
    }

    @Test
    void refusesObjectsWithoutGuids() {
        assertRejected(with(l -> {
            l.set(1, new SignalObject(BASE + "b.ei.spb", 1, List.of(), 5));
            return l;
        }), "b.ei.spb lists no GUIDs");
        assertRejected(with(l -> {
            l.set(1, new SignalObject(BASE + "b.ei.spb", 1, Arrays.asList("G3", ""), 5));
            return l;
        }), "b.ei.spb lists an empty GUID");
    }

    @Test
    void refusesAGuidSelectedTwice() {
        assertRejected(with(l -> {
            l.set(1, object("b.ei.spb", 5, "G1"));
            return l;
        }), "GUID G1 is listed for object " + BASE + "b.ei.spb and for object " + BASE + "a.ei.spb");
        assertRejected(signal(List.of(object("a.ei.spb", 10, "G1", "G1"))), "twice");
    }

    @Test
    void refusesEventCountsThatDoNotAddUp() {
        assertRejected(with(l -> {
            l.set(1, object("b.ei.spb", -5, "G3"));
            return l;
        }), "negative event count -5");
        ConsumerSignal g = good();
        assertRejected(new ConsumerSignal(g.type(), "sig-1", g.dataset(), g.container(), 7, 3, g.objects(), 16, 1L),
                "expectedEvents 16 is not the sum over its objects (15)");
    }

    /** Found by SignalValidatorFuzzTest: two huge counts wrapped around to match a negative signal total. */
    @Test
    void refusesEventCountsWhoseSumOverflows() {
        ConsumerSignal s = new ConsumerSignal(ConsumerSignal.TYPE, "sig-1", DATASET, CONTAINER, 7, 3,
                List.of(object("a.ei.spb", Long.MAX_VALUE, "G1"), object("b.ei.spb", Long.MAX_VALUE, "G2")), -2, 1L);
        assertRejected(s, "add up to more than " + Long.MAX_VALUE);
    }

    /** The producer's claims per GUID (a supervisor's signal): kept per GUID when they follow the GUIDs and add up. */
    @Test
    void keepsTheProducersClaimsAndRefusesOnesThatDoNotFollowTheGuids() throws ConsumeException {
        Map<String, EventRange> r = Map.of("327636", new EventRange(1, 7));
        SignalObject a = new SignalObject(BASE + "a.ei.spb", 1000, 0, List.of("G1", "G2"), 10,
                List.of(new SignalFile("G1", 7, r), new SignalFile("G2", 3, null)));
        ValidSignal v = validator.validate(signal(List.of(a)));
        assertEquals(7, v.objects().get(0).files().get("G1").nevents());
        assertEquals(r, v.objects().get(0).files().get("G1").runevtRanges());
        assertEquals(Map.of(), validator.validate(good()).objects().get(0).files(), "an older supervisor's signal");

        assertRejected(signal(List.of(new SignalObject(BASE + "a.ei.spb", 1000, 0, List.of("G1", "G2"), 10,
                List.of(new SignalFile("G1", 10, r))))), "lists 2 GUIDs but 1 files");
        assertRejected(signal(List.of(new SignalObject(BASE + "a.ei.spb", 1000, 0, List.of("G1", "G2"), 10,
                List.of(new SignalFile("G2", 3, null), new SignalFile("G1", 7, r))))), "do not follow its GUIDs");
        assertRejected(signal(List.of(new SignalObject(BASE + "a.ei.spb", 1000, 0, List.of("G1", "G2"), 10,
                List.of(new SignalFile("G1", 8, r), new SignalFile("G2", 3, null))))),
                "expects 10 events but its files add up to 11");
        assertRejected(signal(List.of(new SignalObject(BASE + "a.ei.spb", 1000, 0, List.of("G1", "G2"), 10,
                List.of(new SignalFile("G1", 7, Map.of("run-1", new EventRange(1, 7))), new SignalFile("G2", 3,
                        null))))), "run range 'run-1' is not a run");
        assertRejected(signal(List.of(new SignalObject(BASE + "a.ei.spb", 1000, 0, List.of("G1", "G2"), 10,
                List.of(new SignalFile("G1", -1, r), new SignalFile("G2", 11, null))))), "negative event count -1");
    }
}
