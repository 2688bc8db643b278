package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.eventindex.io.FileReason;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerMessage;
import org.eventindex.producer.ObjectUploader.StoredObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one planned upload: connect to the broker (so a dead broker or bad credentials stop the run before
 * anything is stored), store the file as one object without ever overwriting, verify it with a HEAD (size, the ETag
 * the server computed, the sha256 metadata), then send the control message and wait for the broker's receipt. Each
 * step is retried by the {@link RetryPolicy}, all within one deadline. When the broker fails after the upload only
 * the message is retried, for the same object and with the same message id (a receipt lost after the broker stored
 * the message can therefore produce a second copy with that id, which the supervisor records once).
 */
public final class Producer {
    private static final Logger LOG = LoggerFactory.getLogger(Producer.class);

    private final ObjectUploader store;
    private final ControlChannel channel;
    private final String queue;
    private final RetryPolicy retry;
    private final Clock clock;

    public Producer(ObjectUploader store, ControlChannel channel, String queue, RetryPolicy retry, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.channel = requireNonNull(channel, "channel is null");
        this.queue = requireNonNull(queue, "queue is null");
        this.retry = requireNonNull(retry, "retry is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** @return the message that the broker acknowledged */
    public ProducerMessage publish(UploadPlan plan) throws ProducerException {
        requireNonNull(plan, "plan is null");
        if (plan.url() == null) {
            throw new IllegalArgumentException("the plan of " + plan.file().path() + " has no bucket and URL: it is a"
                    + " dry run's and cannot be published");
        }
        RetryPolicy.Budget budget = retry.start();
        budget.run("connect to the broker", () -> {
            channel.connect();
            return null;
        });
        LOG.info("uploading {} ({} bytes) to {}", plan.file().path(), plan.file().size(), plan.url());
        // The ETag the store must report is computed over another read of the file beside the upload, which waits on
        // the network (decision 0081).
        FutureTask<String> etag = new FutureTask<>(
                () -> plan.file().digests().etagOf(plan.file().path(), store.uploadSettings()));
        Thread etagThread = new Thread(etag, "ETag of " + plan.file().path().getFileName());
        etagThread.setDaemon(true);
        etagThread.start();
        try {
            boolean created = budget.run("upload to " + plan.url(), () -> store.putIfAbsent(plan.bucket(),
                    plan.key().key(), plan.file().path(), plan.metadata(), budget));
            StoredObject stored = budget.run("verify " + plan.url(),
                    () -> store.head(plan.bucket(), plan.key().key()));
            verify(plan, stored, created, expectedEtag(etag, plan));
        } finally {
            etag.cancel(true);
        }

        ProducerMessage message = plan.message(clock.millis());
        byte[] json = Json.write(message);
        try {
            budget.run("send to " + queue, () -> {
                channel.send(queue, json);
                return null;
            });
        } catch (ProducerException e) {
            throw new ProducerException(e.exitCode(), plan.url() + " is stored but message " + message.id() + " to "
                    + queue + " was not acknowledged: " + e.getMessage(), e);
        }
        LOG.info("sent message {} to {}", message.id(), queue);
        return message;
    }

    /** The ETag computed beside the upload; a file that changed since it was validated is not verified. */
    private static String expectedEtag(FutureTask<String> etag, UploadPlan plan) throws ProducerException {
        try {
            return etag.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProducerException(ExitCode.TRANSIENT, "interrupted while computing the ETag of "
                    + plan.file().path(), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ContentDigests.FileChangedException changed) {
                throw new ProducerException(ExitCode.TRANSIENT, plan.url() + " is stored but not verified: "
                        + changed.getMessage() + "; run the producer again on the finished file", changed);
            }
            if (cause instanceof IOException io) {
                throw new ProducerException(ExitCode.TRANSIENT, plan.file().path() + ": cannot read it again to"
                        + " verify " + plan.url() + ": " + FileReason.of(io), io);
            }
            throw new IllegalStateException("computing the ETag of " + plan.file().path() + " failed: " + cause,
                    cause);
        }
    }

    private static void verify(UploadPlan plan, StoredObject stored, boolean created, String expectedEtag)
            throws ProducerException {
        String sha = stored.userMetadata().get(UploadPlan.SHA256_METADATA);
        if (!created && !plan.file().sha256().equals(sha)) {
            // With a random uuid per run this means a broken uuid source or a tampered store: never overwrite.
            throw new ProducerException(ExitCode.TRANSIENT, plan.url() + " already exists with other content");
        }
        if (!created) {
            LOG.info("{} already held this file (an earlier attempt of this run stored it)", plan.url());
        }
        if (stored.size() != plan.file().size()) {
            throw new ProducerException(ExitCode.TRANSIENT, plan.url() + " holds " + stored.size()
                    + " bytes after upload, expected " + plan.file().size());
        }
        if (sha != null && !plan.file().sha256().equals(sha)) {
            throw new ProducerException(ExitCode.TRANSIENT, plan.url() + " has sha256 metadata " + sha
                    + ", expected " + plan.file().sha256());
        }
        // The ETag is computed by the server from the bytes it stored: MD5 (single PUT) or MD5 of part MD5s.
        // Stores that encrypt or otherwise do not use MD5 ETags answer something else; only an MD5-form ETag is
        // compared.
        String etag = stored.etag();
        if (etag != null && etag.matches("[0-9a-fA-F]{32}(-[0-9]+)?") && !etag.equalsIgnoreCase(expectedEtag)) {
            throw new ProducerException(ExitCode.TRANSIENT, plan.url() + " has ETag " + etag + " after upload, "
                    + "expected " + expectedEtag + ": the store holds other bytes than the file");
        }
    }
}
