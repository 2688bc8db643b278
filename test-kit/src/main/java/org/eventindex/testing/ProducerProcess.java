package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of the producer jar as a separate JVM, the way a grid job wrapper invokes it: {@code java -Xmx64m
 * <quick start> -jar eventindex-producer.jar ARGS}. Its secrets come only from the environment given: the
 * {@code EI_} variables of the running JVM are not passed on, and secrets never go on the command line. The demo, the
 * chaos harness, the differential check and the producer's own jar tests run producers through it.
 */
public final class ProducerProcess {
    /** The system property naming the producer jar (the build sets it for the tests that run it). */
    public static final String JAR_PROPERTY = "ei.producer.jar";

    private ProducerProcess() {
    }

    /** What a run printed and returned; exit code -1 when it did not exit before its deadline (it was killed). */
    public record Result(int exitCode, String stdout, String stderr, Duration took) {
    }

    /**
     * The process builder of a producer run: the JVM of a grid job ({@link #jvm(Path)}) plus {@code jvmOptions},
     * {@code args}, and only {@code environment} of the {@code EI_} variables.
     */
    public static ProcessBuilder builder(Path jar, List<String> jvmOptions, List<String> args,
                                         Map<String, String> environment) {
        ProcessBuilder pb = jvm(jar).options(jvmOptions).args(args).builder();
        pb.environment().keySet().removeIf(k -> k.startsWith("EI_"));
        pb.environment().putAll(environment);
        return pb;
    }

    /** {@code java -Xmx64m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar jar}: a grid job's small, fast JVM. */
    public static ChildJvm jvm(Path jar) {
        if (!Files.isRegularFile(requireNonNull(jar, "jar is null"))) {
            throw new IllegalArgumentException("producer jar not found at " + jar
                    + " (build it with 'mvn -DskipTests package', or set -D" + JAR_PROPERTY + ")");
        }
        return ChildJvm.jar(jar).heap("64m").quickStart();
    }

    /**
     * Runs {@code pb} (a {@link #builder}) with stdout to {@code out} and stderr to {@code err}, no input, and waits
     * up to {@code deadline}; the files stay for reading after the run.
     */
    public static Result run(ProcessBuilder pb, Path out, Path err, Duration deadline)
            throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        int code;
        if (p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            code = p.exitValue();
        } else {
            p.destroyForcibly();
            p.waitFor();
            code = -1;
        }
        return new Result(code, Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), Duration.ofNanos(System.nanoTime() - t0));
    }
}
