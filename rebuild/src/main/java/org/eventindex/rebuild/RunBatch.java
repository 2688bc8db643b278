package org.eventindex.rebuild;

import org.eventindex.kudu.DatasetsRow;
import org.eventindex.names.DatasetName;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * The datasets of one run that a rebuild replays, in the order they were loaded ({@code insert_start}), and so one
 * Spark task. A run is the unit because EVENTSOVERLAP is counted against the datasets of the same run loaded before:
 * replayed in their order within one task, each dataset finds exactly the datasets its first load found, and writes
 * the same overlap rows.
 */
public record RunBatch(int run, List<DatasetsRow> datasets) implements Serializable {
    private static final Comparator<DatasetsRow> LOAD_ORDER = Comparator.comparing(DatasetsRow::insertStart)
            .thenComparing(DatasetsRow::dataset);

    public RunBatch {
        datasets = List.copyOf(requireNonNull(datasets, "datasets is null"));
    }

    /** {@code rows} (LOADED, with their insert times) grouped by run, each group in load order; runs ascending. */
    public static List<RunBatch> of(List<DatasetsRow> rows) {
        Map<Integer, List<DatasetsRow>> byRun = new TreeMap<>();
        for (DatasetsRow r : rows) {
            byRun.computeIfAbsent(DatasetName.parse(r.dataset()).runNumber(), k -> new ArrayList<>()).add(r);
        }
        return byRun.entrySet().stream()
                .map(e -> new RunBatch(e.getKey(), e.getValue().stream().sorted(LOAD_ORDER).toList()))
                .toList();
    }

    /**
     * {@code batches} in order, cut into waves of whole runs, each closed once it holds {@code events} events or more
     * (a run bigger than that is a wave of its own).
     */
    public static List<List<RunBatch>> waves(List<RunBatch> batches, long events) {
        List<List<RunBatch>> waves = new ArrayList<>();
        List<RunBatch> wave = new ArrayList<>();
        long inWave = 0;
        for (RunBatch b : batches) {
            wave.add(b);
            inWave += b.events();
            if (inWave >= events) {
                waves.add(List.copyOf(wave));
                wave.clear();
                inWave = 0;
            }
        }
        if (!wave.isEmpty()) {
            waves.add(List.copyOf(wave));
        }
        return waves;
    }

    /** Events these datasets hold by the catalogue (the weight of the task). */
    public long events() {
        return datasets.stream().mapToLong(d -> d.countEvents() == null ? 0 : d.countEvents()).sum();
    }
}
