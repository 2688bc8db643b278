package org.eventindex.supervisor.journal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The journal files that checkpoints moved aside: {@code supervisor.journal.<seq>}, {@code seq} (12 digits, so that
 * names sort in journal order) being the last entry the file holds, which is its checkpoint's. Kept for operators and
 * never read at start.
 */
final class ArchivedSegments {
    private static final Logger LOG = LoggerFactory.getLogger(ArchivedSegments.class);
    private static final String PREFIX = Journal.FILE_NAME + ".";
    private static final int DIGITS = 12;

    private ArchivedSegments() {
    }

    /** The archived name of the journal file whose last entry is {@code seq}. */
    static String of(long seq) {
        return String.format(Locale.ROOT, "%s%0" + DIGITS + "d", PREFIX, seq);
    }

    /** Deletes the oldest segments beyond the newest {@code keep}; a failure is logged, never thrown. */
    static void prune(JournalFiles files, int keep) {
        try {
            List<String> segments = files.list().stream().filter(ArchivedSegments::isSegment)
                    .sorted(Comparator.reverseOrder()).toList();
            for (String old : segments.subList(Math.min(keep, segments.size()), segments.size())) {
                files.deleteIfExists(old);
                LOG.info("journal segment {} deleted (older than the {} kept)", files.describe(old), keep);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot delete old journal segments in {}: {}", files.location(), e.toString());
        }
    }

    private static boolean isSegment(String name) {
        return name.length() == PREFIX.length() + DIGITS && name.startsWith(PREFIX)
                && name.substring(PREFIX.length()).chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
