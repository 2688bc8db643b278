package org.eventindex.lookup;

/**
 * One event to look up. {@code run} is matched against the DATASETS run number: the data-taking run for real data,
 * the dataset (channel) number for simulation, whose events all carry the same conditions run.
 *
 * @param run   run number, 0..2^31-1
 * @param event event number, unsigned 64-bit stored as a Java long
 */
public record EventKey(int run, long event) {
    public EventKey {
        if (run < 0) {
            throw new IllegalArgumentException("run number " + run + " is negative");
        }
    }

    /** The experiment's lookup-client text form: {@code %08d %09d} (event unsigned). */
    public String text() {
        String e = Long.toUnsignedString(event);
        return String.format("%08d ", run) + "0".repeat(Math.max(0, 9 - e.length())) + e;
    }
}
