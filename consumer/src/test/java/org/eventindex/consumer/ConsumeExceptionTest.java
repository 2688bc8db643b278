package org.eventindex.consumer;

import org.eventindex.spb.SpbFormatException;
import org.eventindex.stomp.StompException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which failures to read an object can never succeed with the same signal (reported as permanent). */
class ConsumeExceptionTest {

    @ParameterizedTest
    @EnumSource(SpbFormatException.Problem.class)
    void aMalformedObjectIsFatalWhateverItsProblem(SpbFormatException.Problem problem) {
        assertEquals(FATAL, ConsumeException.of(new SpbFormatException("s3://h:1/b/k", 7, problem, "test")));
    }

    @Test
    void aMissingObjectIsFatal() {
        assertEquals(FATAL, ConsumeException.of(new FileNotFoundException("object s3://h:1/b/k does not exist")));
    }

    @Test
    void otherIoErrorsAreRetriable() {
        assertEquals(RETRIABLE, ConsumeException.of(new IOException("connection reset")));
        assertEquals(RETRIABLE, ConsumeException.of(new SocketTimeoutException("read timed out")));
        assertEquals(RETRIABLE, ConsumeException.of(new InterruptedIOException("interrupted")));
        assertEquals(RETRIABLE, ConsumeException.of(new StompException("no STOMP broker accepted a connection", false)));
    }
}
