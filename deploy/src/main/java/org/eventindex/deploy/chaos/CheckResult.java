package org.eventindex.deploy.chaos;

import java.util.List;

/**
 * The checker's verdict over a set of datasets.
 *
 * @param datasets       datasets checked
 * @param expectedEvents unique events that must be in EVENTS/MCEVENTS
 * @param eventsFound    rows found there
 * @param lost           expected events missing
 * @param extra          rows found that are not expected (twice-loaded or foreign rows)
 * @param violations     every violation, empty when all promises hold
 */
record CheckResult(int datasets, long expectedEvents, long eventsFound, long lost, long extra,
                   List<Violation> violations) {
    CheckResult {
        violations = List.copyOf(violations);
    }

    boolean ok() {
        return violations.isEmpty();
    }

    List<Violation.Kind> kinds() {
        return violations.stream().map(Violation::kind).toList();
    }
}
