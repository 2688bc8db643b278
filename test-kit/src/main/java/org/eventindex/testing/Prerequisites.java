package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from outside its JVM (binaries on the PATH, an artifact the build makes). With {@code CI} set, a
 * missing prerequisite fails the test, so a CI run cannot quietly stop testing; elsewhere (an IDE, a partial build)
 * it skips the test with the same reason.
 */
public final class Prerequisites {
    private Prerequisites() {
    }

    /** True when the environment variable {@code CI} is set to anything but {@code false} or {@code 0}. */
    public static boolean isCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !"false".equalsIgnoreCase(ci.strip()) && !"0".equals(ci.strip());
    }

    /**
     * @param present whether the prerequisite is there
     * @param missing what is missing and how to get it (the failure or skip reason)
     */
    public static void require(boolean present, String missing) {
        require(present, missing, isCi());
    }

    /** {@link #require(boolean, String)} with the environment given (for its own test). */
    static void require(boolean present, String missing, boolean ci) {
        requireNonNull(missing, "missing is null");
        if (present) {
            return;
        }
        if (ci) {
            throw new AssertionError(missing + " (CI is set, so this test may not be skipped)");
        }
        Assumptions.assumeTrue(false, missing + " (skipped: not in CI)");
    }
}
