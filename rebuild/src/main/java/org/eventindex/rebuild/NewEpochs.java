package org.eventindex.rebuild;

import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EpochRule;
import org.eventindex.kudu.KuduTables;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * Epochs assigned anew by a rebuild ({@code --epoch-max-events}, a new epoch size): the selected datasets, in the
 * order the supervisor placed them (their dataset ids), fill epochs from {@code first} on as the supervisor fills them
 * ({@link EpochRule}), each up to {@code maxEvents} events (a dataset bigger than that alone in its epoch). The rebuilt
 * rows and DATASETS then carry the new epoch; everything else is the loader's. The same selection gives the same
 * epochs, so a rebuild run again or resumed places every dataset where the first run did.
 *
 * @param first the first epoch to fill, or empty for the lowest epoch of the selected datasets
 */
public record NewEpochs(OptionalInt first, long maxEvents) {

    public NewEpochs {
        requireNonNull(first, "first is null");
        if (first.isPresent()) {
            KuduTables.checkEpoch(first.getAsInt());
        }
        if (maxEvents < 1) {
            throw new IllegalArgumentException("the epoch size must be at least 1 event: " + maxEvents);
        }
    }

    /** {@code rows} with their epochs assigned anew, in the order of their dataset ids. */
    List<DatasetsRow> assign(List<DatasetsRow> rows) {
        List<DatasetsRow> sorted = rows.stream().sorted(Comparator.comparingInt(DatasetsRow::dspid)
                .thenComparing(DatasetsRow::dataset)).toList();
        if (sorted.isEmpty()) {
            return sorted;
        }
        int epoch = first.orElse(sorted.stream().mapToInt(DatasetsRow::rgid).min().getAsInt());
        long inCurrent = 0;
        List<DatasetsRow> placed = new ArrayList<>(sorted.size());
        for (DatasetsRow r : sorted) {
            long events = r.countEvents() == null ? 0 : r.countEvents();
            if (EpochRule.opensNext(inCurrent, events, maxEvents)) {
                epoch++;
                inCurrent = 0;
            }
            inCurrent += events;
            placed.add(new DatasetsRow(r.dataset(), r.dspid(), epoch, r.state(), r.loadId(), r.hdfsPath(),
                    r.countEvents(), r.uniqDuplEvents(), r.numDuplicates(), r.insertStart(), r.insertEnd(),
                    r.signalTs(), r.contentChecksum()));
        }
        return placed;
    }
}
