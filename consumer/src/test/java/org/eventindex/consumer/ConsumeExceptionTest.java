package org.eventindex.consumer;

import org.eventindex.spb.SpbFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;

import static org.eventindex.consumer.ConsumeException.Kind.PERMANENT;
import static org.eventindex.consumer.ConsumeException.Kind.TRANSIENT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which failures to read an object can never succeed with the same signal. */
class ConsumeExceptionTest {

    @ParameterizedTest
    @EnumSource(SpbFormatException.Problem.class)
    void aMalformedObjectIsPermanentWhateverItsProblem(SpbFormatException.Problem problem) {
        assertEquals(PERMANENT, ConsumeException.of(new SpbFormatException("s3://h:1/b/k", 7, problem, "test")));
    }

    @Test
    void aMissingObjectIsPermanent() {
        assertEquals(PERMANENT, ConsumeException.of(new FileNotFoundException("object s3://h:1/b/k does not exist")));
    }

    @Test
    void otherIoErrorsAreTransient() {
        assertEquals(TRANSIENT, ConsumeException.of(new IOException("connection reset")));
        assertEquals(TRANSIENT, ConsumeException.of(new SocketTimeoutException("read timed out")));
        assertEquals(TRANSIENT, ConsumeException.of(new InterruptedIOException("interrupted")));
    }
}
