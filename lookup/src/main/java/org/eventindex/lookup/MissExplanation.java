package org.eventindex.lookup;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Why an event was not found: every {@link Reason} that holds, from what DATASETS, EVENTS/MCEVENTS and the
 * supervisor's {@code /datasets} know at the time of the lookup.
 *
 * @param reasons the answers that hold, in the order of {@link Code}; never empty
 * @param caveat  what the explanation could not see (no supervisor configured, or it did not answer), else null
 */
public record MissExplanation(List<Reason> reasons, String caveat) {
    public MissExplanation {
        reasons = List.copyOf(reasons);
        if (reasons.isEmpty()) {
            throw new IllegalArgumentException("an explanation needs at least one reason");
        }
    }

    /** The kinds of answer, in the order they are given. */
    public enum Code {
        /** Found, but only in datasets or file types the lookup's filters excluded (named). */
        FILTERED,
        /** No LOADED dataset holds the run. */
        RUN_NOT_INDEXED,
        /** The run is indexed, but the event number is outside every LOADED dataset's event range for it. */
        OUTSIDE_RANGES,
        /** Within the event range of a LOADED dataset of the run, but not in it (the index has no such event). */
        WITHIN_RANGES,
        /** A dataset of the run is still collecting, signalled, loading (or failed to): not queryable yet. */
        NOT_YET_QUERYABLE,
        /** The tables could not be read to explain the miss (the message says which and why). */
        UNEXPLAINED
    }

    /**
     * One answer.
     *
     * @param datasets the datasets it is about (none for {@link Code#RUN_NOT_INDEXED})
     */
    public record Reason(Code code, String message, List<DatasetNote> datasets) {
        public Reason {
            requireNonNull(code, "code is null");
            requireNonNull(message, "message is null");
            datasets = List.copyOf(datasets);
        }
    }

    /**
     * A dataset named by a reason.
     *
     * @param state     LOADED or LOADING (DATASETS), or the supervisor's state (COLLECTING, SIGNALLED...)
     * @param detail    what about it: below its first event, what is missing, which filter excluded it
     * @param queryable the supervisor's estimate of when it is queryable; null when none is published
     */
    public record DatasetNote(String dataset, String state, String detail, Instant queryable) {
        public DatasetNote {
            requireNonNull(dataset, "dataset is null");
            requireNonNull(state, "state is null");
            requireNonNull(detail, "detail is null");
        }

        /** {@code name (STATE: detail)} */
        @Override
        public String toString() {
            return dataset + " (" + state + (detail.isEmpty() ? "" : ": " + detail) + ")";
        }
    }

    /** One line: the reasons' messages joined with {@code "; "}, then the caveat in brackets. */
    public String text() {
        String s = reasons.stream().map(Reason::message).collect(Collectors.joining("; "));
        return caveat == null ? s : s + " [" + caveat + "]";
    }
}
