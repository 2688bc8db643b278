package org.eventindex.testing;

import java.util.Objects;

/** Reads a daemon's {@code /metrics} answer, the Prometheus text exposition, as a scraper would. */
public final class MetricsText {
    private MetricsText() {
    }

    /**
     * The sum of the samples named {@code name} whose labels contain {@code label} (e.g. {@code area="heap"}; empty:
     * every sample of that name), -1 when there is none.
     */
    public static double value(String exposition, String name, String label) {
        Objects.requireNonNull(exposition, "exposition is null");
        Objects.requireNonNull(label, "label is null");
        double sum = -1;
        for (String line : exposition.split("\n")) {
            if (!(line.startsWith(name + " ") || line.startsWith(name + "{"))) {
                continue;
            }
            int close = line.lastIndexOf('}');
            String labels = close < 0 ? "" : line.substring(name.length(), close + 1);
            if (labels.contains(label)) {
                String value = line.substring(close < 0 ? name.length() : close + 1).strip().split("\\s+")[0];
                sum = Math.max(sum, 0) + Double.parseDouble(value);
            }
        }
        return sum;
    }

    /** {@link #value(String, String, String)} over every sample of {@code name}. */
    public static double value(String exposition, String name) {
        return value(exposition, name, "");
    }
}
