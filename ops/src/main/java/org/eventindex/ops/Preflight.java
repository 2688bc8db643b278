package org.eventindex.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The checks {@code eventindex check} runs before a start: each dependency tried once with the configured
 * credentials, each bounded in time (a dependency that does not answer is a failure naming it, not a hang), in the
 * order given. A check is a {@link DependencyChecks.Check}, the probe {@code /ready} runs in the background, with
 * the thing it tries and the fix an operator applies when it fails.
 */
public final class Preflight {
    private Preflight() {
    }

    /**
     * One check.
     *
     * @param name  short and stable, for machines ({@code broker.login}, {@code hdfs.root}, {@code kudu.tables})
     * @param thing what is tried, as the operator knows it ({@code broker 10.0.0.5:61613}, {@code s3://bucket})
     * @param fix   what to do when it fails
     * @param probe returns when the thing works, throws with the reason when it does not
     */
    public record Check(String name, String thing, String fix, DependencyChecks.Check probe) {
        public Check {
            Objects.requireNonNull(name, "name is null");
            Objects.requireNonNull(thing, "thing is null");
            Objects.requireNonNull(fix, "fix is null");
            Objects.requireNonNull(probe, "probe is null");
        }
    }

    /**
     * What a probe throws when it cannot run because an earlier check failed (the login a Kudu check needs): its
     * line then says so and sends the operator to that check, instead of a reason and a fix of its own.
     */
    public static final class NotTried extends java.io.IOException {
        private final String failedCheck;

        /** @param failedCheck the name of the earlier check that failed */
        public NotTried(String failedCheck) {
            super("not tried: " + failedCheck + " failed");
            this.failedCheck = Objects.requireNonNull(failedCheck, "failedCheck is null");
        }
    }

    /**
     * A check's outcome.
     *
     * @param reason why it failed (or what was seen when it passed)
     * @param millis how long it took
     */
    public record Result(String name, String thing, boolean ok, String reason, String fix, long millis) {
    }

    /** Runs every check in turn, each on a thread of its own that has {@code timeout} to answer. */
    public static List<Result> run(List<Check> checks, Duration timeout) {
        Objects.requireNonNull(checks, "checks is null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("check timeout must be positive: " + timeout);
        }
        List<Result> out = new ArrayList<>();
        for (Check c : checks) {
            out.add(run(c, timeout));
        }
        return List.copyOf(out);
    }

    /** One check, bounded by {@code timeout}; a check still running then is interrupted and left behind. */
    public static Result run(Check check, Duration timeout) {
        long start = System.nanoTime();
        FutureTask<Void> task = new FutureTask<>(() -> {
            check.probe().run();
            return null;
        });
        Thread t = new Thread(task, "preflight-" + check.name());
        t.setDaemon(true);
        t.start();
        try {
            task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return result(check, true, "", start);
        } catch (TimeoutException e) {
            task.cancel(true);
            return result(check, false, "no answer within " + seconds(timeout), start);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof NotTried n) {
                return new Result(check.name(), check.thing(), false, n.getMessage(), "fix " + n.failedCheck
                        + " first", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            return result(check, false, DependencyChecks.message(e.getCause()), start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            return result(check, false, "interrupted", start);
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static Result result(Check c, boolean ok, String reason, long startNanos) {
        return new Result(c.name(), c.thing(), ok, reason, ok ? "" : c.fix(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    /** Whether every check passed. */
    public static boolean allOk(List<Result> results) {
        return results.stream().allMatch(Result::ok);
    }

    /**
     * One line per check: {@code OK   name  thing (N ms)}, or {@code FAIL name  thing: reason; fix: ...}; then a
     * summary line.
     */
    public static String text(List<Result> results) {
        StringBuilder out = new StringBuilder();
        for (Result r : results) {
            if (r.ok()) {
                out.append(String.format("OK   %-16s %s (%d ms)%n", r.name(), r.thing(), r.millis()));
            } else {
                out.append(String.format("FAIL %-16s %s: %s; fix: %s%n", r.name(), r.thing(), r.reason(), r.fix()));
            }
        }
        long failed = results.stream().filter(r -> !r.ok()).count();
        out.append(failed == 0 ? "all " + results.size() + " checks passed"
                : failed + " of " + results.size() + " checks failed").append(System.lineSeparator());
        return out.toString();
    }

    /** {@code {"ok": bool, "checks": [{"name", "thing", "ok", "reason", "fix", "millis"}...]}}. */
    public static String json(List<Result> results) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("ok", allOk(results));
        doc.put("checks", results);
        try {
            return new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the check results as JSON: " + e.getMessage(), e);
        }
    }
}
