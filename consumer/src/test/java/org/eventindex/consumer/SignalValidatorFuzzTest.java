package org.eventindex.consumer;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz target for a consumer signal body: the JSON mapping to {@link ConsumerSignal} (as {@code SignalHandler} does
 * it) then {@link SignalValidator}. Contract: the body is refused with an {@link IOException} or a
 * {@link ConsumeException} whose message names the signal, or it yields a {@link ValidSignal} the consumer can act
 * on safely: the dataset name parses and its container is the one given, every object is on the configured endpoint
 * and bucket, no object or GUID repeats, and the event counts are not negative and add up exactly.
 */
class SignalValidatorFuzzTest {
    private static final String HOST = "s3.example";
    private static final int PORT = 7480;
    private static final String BUCKET = "eventindex";
    private final SignalValidator validator = new SignalValidator(HOST, PORT, BUCKET);

    @FuzzTest(maxDuration = "30s")
    void signal(byte[] body) {
        if (body == null) {
            return; // Jazzer may pass null; a stream or message body never is
        }
        ConsumerSignal signal;
        try {
            signal = Json.read(body, ConsumerSignal.class);
        } catch (IOException e) {
            assertNotNull(e.getMessage(), "message of " + e);
            return;
        }
        if (signal == null) {
            return; // the JSON literal null; SignalHandler refuses it before validating
        }
        ValidSignal valid;
        try {
            valid = validator.validate(signal);
        } catch (ConsumeException e) {
            assertTrue(e.getMessage().startsWith("invalid signal "), "rejection names the signal: " + e.getMessage());
            return;
        }
        assertEquals(valid.name(), DatasetName.parse(signal.dataset()), "dataset");
        assertEquals(valid.name().container(), valid.container(), "container");
        assertTrue(signal.dspid() >= 0 && signal.epoch() >= 0, "dspid and epoch");
        assertFalse(valid.objects().isEmpty(), "objects");
        Set<String> urls = new HashSet<>();
        Set<String> guids = new HashSet<>();
        BigInteger total = BigInteger.ZERO;
        for (SelectedObject o : valid.objects()) {
            assertTrue(o.url().host().equalsIgnoreCase(HOST) && o.url().port() == PORT, "endpoint of " + o.url());
            assertEquals(BUCKET, o.url().bucket(), "bucket of " + o.url());
            assertTrue(urls.add(o.url().toString()), "object " + o.url() + " twice");
            assertFalse(o.guids().isEmpty(), "GUIDs of " + o.url());
            for (String g : o.guids()) {
                assertTrue(guids.add(g), "GUID " + g + " twice");
            }
            assertTrue(o.expectedEvents() >= 0, "expected events of " + o.url());
            total = total.add(BigInteger.valueOf(o.expectedEvents()));
        }
        assertEquals(total, BigInteger.valueOf(signal.expectedEvents()), "expected events: the exact sum");
    }
}
