package org.eventindex.supervisor;

import java.util.List;
import java.util.Set;

/**
 * The last {@code supervisor rebuild-state} recorded in the journal (decision 0054): the cleanup deletes an object
 * that no journal entry names only when this reconciliation listed it ({@code lastModified} at least
 * {@link #MARGIN_MILLIS} before {@link #listedAt}) and decided it ({@code undecidedObjects} does not hold it).
 *
 * @param seq              the journal entry ({@code STATE_RECONCILED})
 * @param listedAt         when its bucket listing started, epoch milliseconds
 * @param undecidedObjects keys of the objects it could not decide
 */
record Reconciliation(long seq, long listedAt, List<String> undecidedObjects) {
    /**
     * How much earlier than the listing an object must have been written to count as listed: object stores give
     * whole seconds, and the store's clock is not the command's.
     */
    static final long MARGIN_MILLIS = 60_000;

    Reconciliation {
        undecidedObjects = undecidedObjects == null ? List.of() : List.copyOf(undecidedObjects);
    }

    /** Why the cleanup keeps an object no entry names, last modified at {@code lastModified}; null: it may go. */
    static String keepReason(Reconciliation r, Set<String> undecided, String key, long lastModified) {
        if (r == null) {
            return "no reconciliation (supervisor rebuild-state) is recorded in the journal";
        }
        if (lastModified < 0 || lastModified >= r.listedAt() - MARGIN_MILLIS) {
            return "written after the last reconciliation (journal entry " + r.seq() + ", less than "
                    + MARGIN_MILLIS / 1000 + " s before its listing counts as after)";
        }
        if (undecided.contains(key)) {
            return "the last reconciliation (journal entry " + r.seq() + ") could not decide it";
        }
        return null;
    }
}
