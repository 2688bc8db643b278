package org.eventindex.consumer;

import org.eventindex.message.ConsumerReport;

import java.io.IOException;

/** Where reports go: the supervisor's control queue in the daemon. */
@FunctionalInterface
public interface ReportSink {

    /** Returns once the report is safely with the broker. */
    void send(ConsumerReport report) throws IOException;
}
