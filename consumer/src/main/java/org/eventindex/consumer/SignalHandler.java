package org.eventindex.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.Json;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompMessageHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Handles one message of the signal queue: decode, validate, process, then report DONE or FAILED to the supervisor.
 * A signal from a supervisor that was taken over from (a lower fencing token than one seen) is dropped first
 * ({@link SupervisorTokens}).
 * The report is sent before returning, and returning acknowledges the signal: a signal is never acknowledged without
 * its outcome being with the broker. Every failure, including a poison message, is reported and acknowledged (a
 * retry of the same selection is the supervisor's decision, which the report helps with: {@code permanent} when the
 * same signal can never succeed, see {@link ConsumeException}, and its {@code cause}: input, transient, or internal
 * for an unexpected exception, a bug, which is permanent too); only a report that cannot be sent, or an
 * {@link Error}, makes this throw.
 */
public final class SignalHandler implements StompMessageHandler {
    private static final Logger LOG = LoggerFactory.getLogger(SignalHandler.class);

    private final String consumerId;
    private final SignalValidator validator;
    private final DatasetProcessor processor;
    private final ReportSink reports;
    private final ConsumerMetrics metrics;
    private final ConsumerStatus status;
    private final Clock clock;
    private final SupervisorTokens tokens;

    SignalHandler(String consumerId, SignalValidator validator, DatasetProcessor processor, ReportSink reports,
                  ConsumerMetrics metrics, ConsumerStatus status, Clock clock) {
        this.consumerId = Objects.requireNonNull(consumerId, "consumerId is null");
        this.validator = Objects.requireNonNull(validator, "validator is null");
        this.processor = Objects.requireNonNull(processor, "processor is null");
        this.reports = Objects.requireNonNull(reports, "reports is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.status = Objects.requireNonNull(status, "status is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.tokens = new SupervisorTokens(metrics);
    }

    @Override
    public void onMessage(StompMessage message) throws IOException {
        if (message.redelivered()) {
            LOG.info("signal message {} is a redelivery", message.messageId());
        }
        if (!tokens.admit(message.headers().get(ConsumerSignal.TOKEN_HEADER), message.messageId())) {
            return; // a deposed supervisor's signal: acknowledged, not processed (SupervisorTokens says why)
        }
        reports.send(handle(message.body(), message.messageId()));
    }

    /**
     * A signal whose STOMP frame was over {@code consumer.stomp.frame.max.bytes} or
     * {@code consumer.stomp.frame.max.header.bytes}: not processed, reported FAILED (with the signalId and dataset
     * when the kept first bytes of the body name them, so that the supervisor's retries and operator hold apply)
     * and acknowledged.
     */
    @Override
    public void onOversize(StompMessage message) throws IOException {
        reports.send(oversize(message.body(), message.messageId(), message.oversize()));
    }

    /** The FAILED report of an oversize signal whose body starts with {@code preview}. */
    ConsumerReport oversize(byte[] preview, String messageId, String oversize) {
        long now = clock.millis();
        Map<String, String> ids = SignalPreview.topLevelStrings(preview, "signalId", "dataset");
        String reason = "signal message " + messageId + " is over this consumer's STOMP frame limits ("
                + ConsumerConfig.STOMP_FRAME_MAX_BYTES + ", " + ConsumerConfig.STOMP_FRAME_MAX_HEADER_BYTES + "): "
                + oversize + "; not processed";
        LOG.warn("{}", reason);
        ConsumerReport r = failed(ids.get("signalId"), ids.get("dataset"), reason, true, now, now,
                ConsumerReport.CAUSE_INPUT);
        count(r);
        return r;
    }

    /** Decodes and handles a raw signal; a body that is not a signal gives a FAILED report naming the message. */
    public ConsumerReport handle(byte[] body, String messageId) {
        ConsumerSignal signal;
        JsonNode tree;
        try {
            tree = Json.tree(body);
            Optional<String> newer = FormatVersion.newer("signal message " + messageId + " (signal "
                    + tree.path("signalId").asText("?") + ", dataset " + tree.path("dataset").asText("?") + ")",
                    FormatVersion.of(tree), ConsumerSignal.FORMAT_VERSION, "consumer");
            if (newer.isPresent()) {
                return newerSignal(tree, newer.get());
            }
            signal = Json.mapper().treeToValue(tree, ConsumerSignal.class);
        } catch (IOException | RuntimeException e) {
            long now = clock.millis();
            String reason = "message " + messageId + " is not a consumer signal: " + e.getMessage();
            LOG.warn("{}", reason);
            ConsumerReport r = failed(null, null, reason, true, now, now, ConsumerReport.CAUSE_INPUT);
            count(r);
            return r;
        }
        return handle(signal);
    }

    /**
     * A signal of a newer format than this consumer reads (a newer supervisor's, decision 0055): not processed,
     * reported FAILED as transient, so that the supervisor's retry may reach a consumer that reads it (a rolling
     * upgrade of the consumers), with the versions and what to do.
     */
    private ConsumerReport newerSignal(JsonNode tree, String why) {
        long now = clock.millis();
        LOG.error("{}", why);
        JsonNode signalId = tree.get("signalId");
        JsonNode dataset = tree.get("dataset");
        ConsumerReport r = failed(signalId != null && signalId.isTextual() ? signalId.asText() : null,
                dataset != null && dataset.isTextual() ? dataset.asText() : null, why, false, now, now,
                ConsumerReport.CAUSE_TRANSIENT);
        count(r);
        return r;
    }

    /** Handles a decoded signal to its end and returns the report (not yet sent). */
    public ConsumerReport handle(ConsumerSignal signal) {
        Objects.requireNonNull(signal, "signal is null");
        long start = clock.millis();
        int objects = signal.objects() == null ? 0 : signal.objects().size();
        status.started(signal.signalId(), signal.dataset(), objects);
        LOG.info("signal {}: dataset {} from {} object(s), {} events expected", signal.signalId(), signal.dataset(),
                objects, signal.expectedEvents());
        ConsumerReport report;
        try {
            DatasetProcessor.Outcome o = processor.process(validator.validate(signal));
            long end = clock.millis();
            report = new ConsumerReport(ConsumerReport.TYPE, signal.signalId(), signal.dataset(), consumerId,
                    ConsumerReport.DONE, o.file().toUri().getPath(), o.written().eventsWritten(),
                    o.loaded().eventsLoaded(), o.loaded().duplicateEvents(), o.written().objectsRead(),
                    o.written().bytesRead(), end - start, null, end, false);
            metrics.eventsWritten.inc(o.written().eventsWritten());
            metrics.eventsLoaded.inc(o.loaded().eventsLoaded());
            LOG.info("signal {}: dataset {} DONE: {} events written to {} from {} object(s) ({} bytes), {} in Kudu,"
                            + " {} duplicates, {} ms", signal.signalId(), signal.dataset(), o.written().eventsWritten(),
                    report.hdfsPath(), o.written().objectsRead(), o.written().bytesRead(), o.loaded().eventsLoaded(),
                    o.loaded().duplicateEvents(), end - start);
        } catch (ConsumeException e) {
            report = failed(signal, e.getMessage(), !e.retriable(), start,
                    e.retriable() ? ConsumerReport.CAUSE_TRANSIENT : ConsumerReport.CAUSE_INPUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report = failed(signal, "dataset " + signal.dataset() + ": interrupted (consumer stopping)", false, start,
                    ConsumerReport.CAUSE_TRANSIENT);
        } catch (UncheckedIOException e) {
            // a library's unchecked I/O failure: the store or the network, like any other I/O error
            report = failed(signal, "dataset " + signal.dataset() + ": " + e.getMessage(), false, start,
                    ConsumerReport.CAUSE_TRANSIENT);
        } catch (RuntimeException e) {
            // A bug: the objects' content was checked on the first read, so no input makes the code underneath throw.
            // Retrying would redo the whole dataset to fail the same way, so it is not retried by itself; it is not
            // hidden either: reported as internal (the supervisor holds the dataset, counts it and alerts), with its
            // stack trace here. The objects stay; once the consumer is fixed, the operator re-runs it.
            LOG.error("signal {}: dataset {}: internal error (a bug in the consumer; the dataset is held, its objects"
                    + " are kept: re-run it with 'eventindex supervisor resignal {}' once the consumer is fixed)",
                    signal.signalId(), signal.dataset(), signal.dataset(), e);
            report = failed(signal, "dataset " + signal.dataset() + ": internal error: " + e + " (a bug in consumer "
                    + consumerId + ", not a fault of the objects, which are kept; held for an operator: re-run it with"
                    + " 'eventindex supervisor resignal' once the consumer is fixed)", true, start,
                    ConsumerReport.CAUSE_INTERNAL);
            metrics.internalErrors.inc();
        }
        count(report);
        status.finished(report);
        return report;
    }

    private ConsumerReport failed(ConsumerSignal signal, String reason, boolean permanent, long start,
                                  String cause) {
        long end = clock.millis();
        LOG.warn("signal {}: FAILED ({}, {}): {}", signal.signalId(), cause, permanent ? "permanent" : "transient",
                reason);
        return failed(signal.signalId(), signal.dataset(), reason, permanent, start, end, cause);
    }

    private ConsumerReport failed(String signalId, String dataset, String reason, boolean permanent, long start,
                                  long end, String cause) {
        return new ConsumerReport(ConsumerReport.TYPE, signalId, dataset, consumerId, ConsumerReport.FAILED, null,
                0, 0, 0, 0, 0, end - start, reason, end, permanent, cause);
    }

    private void count(ConsumerReport report) {
        metrics.signalsHandled.inc();
        boolean failed = ConsumerReport.FAILED.equals(report.status());
        if (failed) {
            metrics.signalsFailed.inc();
        }
        metrics.signalDuration.labelValues(failed ? "failed" : "done").observe(report.durationMillis() / 1000.0);
    }
}
