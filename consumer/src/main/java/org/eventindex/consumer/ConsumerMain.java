package org.eventindex.consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ConsumerMain run --config consumer.properties}: runs the consumer daemon until SIGTERM/SIGINT.
 * Exit codes: 0 after a clean stop, 2 for bad usage or configuration, 1 when it cannot start, 3
 * ({@link Consumer#EXIT_WORKER_DIED}) when its signal worker died (e.g. of an {@link OutOfMemoryError}), so that
 * its process supervisor (systemd) restarts it.
 */
public final class ConsumerMain {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerMain.class);

    private ConsumerMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.err));
    }

    static int run(String[] args, PrintStream err) {
        if (args.length != 3 || !"run".equals(args[0]) || !"--config".equals(args[1])) {
            err.println("usage: ConsumerMain run --config <consumer.properties>");
            err.println("  keys and defaults: docs/consumer.md; secrets via *.file keys or EI_STOMP_PASSWORD,"
                    + " EI_S3_ACCESS_KEY, EI_S3_SECRET_KEY");
            return 2;
        }
        ConsumerConfig config;
        try {
            config = ConsumerConfig.load(Path.of(args[2]), System.getenv());
        } catch (Exception e) {
            err.println("consumer: bad configuration: " + e.getMessage());
            return 2;
        }
        LOG.info("starting with {}", config);
        Consumer consumer;
        // the worker's death is decided here and acted on by this thread, never on the dying worker's
        AtomicInteger exitStatus = new AtomicInteger();
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            consumer = Consumer.create(config, Clock.systemUTC());
            consumer.start((status, reason) -> {
                exitStatus.compareAndSet(0, status);
                err.println("consumer: exiting with status " + status + ": " + reason);
                stopped.countDown();
            });
        } catch (Exception e) {
            LOG.error("consumer {} could not start", config.consumerId(), e);
            err.println("consumer: cannot start: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.stop();
            stopped.countDown();
        }, "consumer-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            consumer.stop();
        }
        if (exitStatus.get() != 0) {
            consumer.stop();
        }
        return exitStatus.get();
    }
}
