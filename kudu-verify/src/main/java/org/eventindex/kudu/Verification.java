package org.eventindex.kudu;

import java.io.Serializable;
import java.util.HexFormat;
import java.util.List;

/**
 * What {@link DatasetVerifier} found for one dataset.
 *
 * @param file        what the HDFS file gives through the loader's row building, or null when it cannot be read
 * @param kudu        what Kudu holds for the dataset's (dspid, epoch)
 * @param differences every disagreement, each naming both sides; empty when {@link Verdict#OK}
 */
public record Verification(String dataset, int dspid, int epoch, Verdict verdict, Side file, Side kudu,
                           List<String> differences) implements Serializable {

    /** The outcome, and what repairs it. */
    public enum Verdict {
        /** Kudu holds exactly the rows of the file, whose counts are the catalogue's. */
        OK,
        /** The file agrees with the catalogue, Kudu does not: reload the dataset from the file ({@code --repair}). */
        KUDU_DIFFERS,
        /**
         * The file no longer gives the catalogue's counts (replaced, or truncated): Kudu is not reloaded from it; the
         * dataset's file must be restored or the dataset consolidated again (docs/rebuild.md).
         */
        FILE_DIFFERS,
        /** The file cannot be read (missing, not a consolidated file): as FILE_DIFFERS. */
        FILE_UNREADABLE
    }

    /**
     * One side's rows of the dataset.
     *
     * @param events             rows in EVENTS or MCEVENTS
     * @param eventsChecksum     their {@link RowChecksum}
     * @param duplicates         rows in DUPLICATEDEVENTS
     * @param duplicatesChecksum their {@link RowChecksum}
     */
    public record Side(long events, String eventsChecksum, long duplicates, String duplicatesChecksum)
            implements Serializable {
        /** The content checksum of all the side's rows, as DATASETS {@code content_checksum} records a load's. */
        public long content() {
            return HexFormat.of().fromHexDigitsToLong(eventsChecksum) + HexFormat.of().fromHexDigitsToLong(
                    duplicatesChecksum);
        }
    }

    public Verification {
        differences = List.copyOf(differences);
    }

    public boolean ok() {
        return verdict == Verdict.OK;
    }
}
