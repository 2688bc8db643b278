package org.eventindex.producer;

import javax.net.ssl.TrustManager;
import org.eventindex.config.TrustStore;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.eventindex.io.FileReason;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerMessage;
import org.eventindex.spb.SpbFormatException;
import org.eventindex.spb.SpbLimits;
import org.eventindex.stomp.StompSettings;

/**
 * One producer run from a command line to an exit code: parse, validate the SPB file, plan, then (unless dry run)
 * publish. Results go to stdout (one line, or one JSON object with {@code --json}); errors to stderr as one line
 * naming the file or service and the reason. Secrets are never printed.
 */
public final class ProducerCli {
    private static final String NAME = "eventindex-producer";
    private static final Duration S3_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration S3_SOCKET_TIMEOUT = Duration.ofSeconds(120);

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private final RetryPolicy retry;
    private final Clock clock;
    private final UploadSettings upload;

    public ProducerCli(Map<String, String> env, PrintStream out, PrintStream err, RetryPolicy retry, Clock clock) {
        this(env, out, err, retry, clock, UploadSettings.DEFAULT);
    }

    /** @param retry used with its own deadline unless {@code --retry-deadline} is given */
    public ProducerCli(Map<String, String> env, PrintStream out, PrintStream err, RetryPolicy retry, Clock clock,
                       UploadSettings upload) {
        this.env = Map.copyOf(requireNonNull(env, "env is null"));
        this.out = requireNonNull(out, "out is null");
        this.err = requireNonNull(err, "err is null");
        this.retry = requireNonNull(retry, "retry is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.upload = requireNonNull(upload, "upload is null");
    }

    /** @return the process exit code ({@link ExitCode}) */
    public int run(List<String> args) {
        requireNonNull(args, "args is null");
        if (ProducerArgs.wantsHelp(args)) {
            out.print(ProducerArgs.usage(env));
            return ExitCode.SUCCESS.code();
        }
        if (ProducerArgs.wantsVersion(args)) {
            out.println(ProducerArgs.version());
            return ExitCode.SUCCESS.code();
        }
        boolean json = ProducerArgs.wantsJson(args);
        boolean verbose = ProducerArgs.wantsVerbose(args);
        CompletableFuture<ObjectUploader> pending = null;
        try {
            ProducerOptions options = ProducerArgs.parse(args, env);
            if (!options.dryRun()) {
                // Building the S3 client (class loading, ~0.5 s of a cold JVM) contacts nothing: overlap it with the
                // validation, which must finish before anything remote is touched.
                TrustManager[] s3Trust = s3TrustManagers(options);
                pending = CompletableFuture.supplyAsync(() -> new S3ObjectUploader(options.s3Endpoint(),
                        options.accessKey(), options.secretKey(), S3_CONNECT_TIMEOUT, S3_SOCKET_TIMEOUT, upload,
                        s3Trust));
            }
            UploadPlan plan = plan(options, upload, clock.millis());
            if (options.dryRun()) {
                report(json, verbose, "dry-run", plan, plan.message(clock.millis()), options.queue());
                return ExitCode.SUCCESS.code();
            }
            ProducerMessage sent;
            StompSettings stomp = stompSettings(options);
            RetryPolicy policy = options.retryDeadline() == null ? retry : retry.withDeadline(options.retryDeadline());
            try (ObjectUploader store = join(pending);
                 ControlChannel channel = new StompControlChannel(stomp)) {
                pending = null;
                sent = new Producer(store, channel, options.queue(), policy, clock).publish(plan);
            }
            report(json, verbose, "stored", plan, sent, options.queue());
            return ExitCode.SUCCESS.code();
        } catch (ProducerException e) {
            return fail(json, verbose, e.exitCode(), e.getMessage(), e);
        } catch (RuntimeException e) {
            return fail(json, verbose, ExitCode.INTERNAL, e.toString(), e);
        } finally {
            if (pending != null) {
                // The run stopped before the store was used (bad input, configuration): release the client.
                pending.thenAccept(ObjectUploader::close);
            }
        }
    }

    private static ObjectUploader join(CompletableFuture<ObjectUploader> pending) {
        try {
            return pending.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r
                    : new IllegalStateException("cannot create the S3 client: " + e.getCause(), e.getCause());
        }
    }

    /**
     * What a run stores: the file validated and the object key chosen (a fresh uuid), before anything remote.
     *
     * @throws ProducerException {@link ExitCode#BAD_INPUT} for a file that is not a valid SPB file
     */
    public static UploadPlan plan(ProducerOptions options, UploadSettings upload, long nowMillis)
            throws ProducerException {
        return UploadPlan.of(scan(options.file(), upload), options.s3Endpoint(), options.bucket(), UUID.randomUUID(),
                UUID.randomUUID(), nowMillis);
    }

    /**
     * The brokers, login and TLS a run sends its message with.
     *
     * @throws ProducerException {@link ExitCode#CONFIGURATION} when the trust store cannot be read
     */
    public static StompSettings stompSettings(ProducerOptions options) throws ProducerException {
        return StompSettings.of(options.brokers(), options.user(), options.password())
                .withTls(BrokerTlsFactory.of(options.tls()));
    }

    /**
     * The {@code --trust-store} for an https S3 endpoint; null for http or without a trust store.
     *
     * @throws ProducerException {@link ExitCode#CONFIGURATION} when the trust store cannot be read
     */
    public static TrustManager[] s3TrustManagers(ProducerOptions options) throws ProducerException {
        Path store = options.tls().trustStore();
        if (store == null || !"https".equals(options.s3Endpoint().getScheme())) {
            return null;
        }
        try {
            return new TrustStore(store, options.tls().trustStorePassword()).trustManagers("--trust-store");
        } catch (IllegalArgumentException e) {
            throw new ProducerException(ExitCode.CONFIGURATION, e.getMessage(), e);
        }
    }

    private static ScannedFile scan(Path file, UploadSettings upload) throws ProducerException {
        try {
            return ScannedFile.scan(file, SpbLimits.DEFAULT, upload);
        } catch (SpbFormatException e) {
            // Already names the file, the uncompressed offset and the problem.
            throw new ProducerException(ExitCode.BAD_INPUT, e.getMessage(), e);
        } catch (IOException e) {
            throw new ProducerException(ExitCode.BAD_INPUT, file + ": cannot read SPB file: " + FileReason.of(e), e);
        }
    }

    private void report(boolean json, boolean verbose, String status, UploadPlan plan, ProducerMessage message,
                        String queue) {
        if (json) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("exitCode", ExitCode.SUCCESS.code());
            result.put("status", status);
            result.put("file", plan.file().path().toString());
            result.put("bucket", plan.bucket());
            result.put("key", plan.key().key());
            result.put("url", plan.url() == null ? null : plan.url().toString());
            result.put("sha256", plan.file().sha256());
            result.put("queue", queue);
            result.put("summary", RunSummary.json(plan));
            result.put("message", message);
            out.println(new String(Json.write(result), java.nio.charset.StandardCharsets.UTF_8));
            return;
        }
        String what = plan.file().path() + " (" + plan.info().nevents() + " events, " + plan.info().nfiles()
                + " input files, " + plan.file().size() + " bytes)";
        if ("dry-run".equals(status)) {
            out.println("dry run: " + what + " is valid; would store it as " + (plan.url() != null ? plan.url()
                    : "key " + plan.key().key() + " (no --s3-endpoint and --bucket given)") + " and send message "
                    + message.id() + " to " + queue);
        } else {
            out.println("stored " + what + " as " + plan.url() + "; message " + message.id()
                    + " acknowledged on " + queue);
        }
        if (verbose) {
            RunSummary.print(out, plan);
        }
    }

    private int fail(boolean json, boolean verbose, ExitCode code, String message, Throwable cause) {
        err.println(NAME + ": " + code.description() + ": " + message);
        if (verbose || code == ExitCode.INTERNAL) {
            cause.printStackTrace(err);
        }
        if (json) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("exitCode", code.code());
            result.put("status", code.description());
            result.put("error", message);
            out.println(new String(Json.write(result), java.nio.charset.StandardCharsets.UTF_8));
        }
        return code.code();
    }
}
