package org.eventindex.lookup;

import java.util.List;

/**
 * Where one dataset is in the flow, as {@code GET /datasets/{name}} and {@code lookup datasets} show it
 * (docs/lookup.md, "Where is my dataset"). Times are ISO-8601 strings, null when not reached or not known.
 *
 * @param state  COLLECTING, COMPLETE, SIGNALLED, CONSOLIDATING, LOADING, QUERYABLE, FAILED or UNKNOWN
 * @param detail what it waits for or why it is in that state, in words
 * @param events events indexed once queryable, else the producers' count of its selected files; null if unknown
 * @param stages always the five stages, in order
 */
record DatasetStatus(String dataset, String state, String detail, Objects objects, Long events, List<Stage> stages,
                     Estimate estimate) {

    /** The stages of the flow, in order. */
    static final List<String> STAGES = List.of("collecting", "signalled", "consolidating", "loading", "queryable");

    /** @param expected files in its file list, null without one; {@code received}: files with a valid object */
    record Objects(Integer expected, int received) {
    }

    /** @param seconds {@code endedAt - startedAt}, or up to now for the stage in progress; null when not started */
    record Stage(String stage, String startedAt, String endedAt, Double seconds) {
    }

    /** @param queryableAt null when it cannot be estimated ({@code basis} says why) */
    record Estimate(String queryableAt, Double seconds, String basis) {
    }

    DatasetStatus {
        stages = List.copyOf(stages);
    }
}
