package org.eventindex.lookup;

import org.apache.kudu.client.KuduException;
import org.eventindex.lookup.MissExplanation.Code;
import org.eventindex.lookup.MissExplanation.DatasetNote;
import org.eventindex.lookup.MissExplanation.Reason;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Explains the misses of a batch (found nowhere, not failed), from the tables and the supervisor, once per batch:
 * <ol>
 *   <li>with filters, the missed events are looked up again without them; one found so is {@link Code#FILTERED},
 *       naming the datasets and types it was found in and the filter that excluded each;</li>
 *   <li>the others, per run: all DATASETS rows of the run (one scan, any state) and the supervisor's pending
 *       datasets (one request per batch, see {@link SupervisorDatasets});</li>
 *   <li>per LOADED dataset of the run, where the missed events lie against its event range: existence scans
 *       ({@link KuduEventReader#hasEventBeyond}) binary-searched over the run's sorted missed events, so a batch of
 *       {@code n} misses costs at most about {@code 2 log2(n) + 3} scans per dataset, 3 when they lie on one side
 *       of it (the smallest missed event is tried first); runs in parallel on the lookup's pool;</li>
 *   <li>datasets of the run in DATASETS but not LOADED, and those the supervisor has not finished, are
 *       {@link Code#NOT_YET_QUERYABLE}, with their state and what is missing.</li>
 * </ol>
 * A hit never reaches this class.
 */
final class MissExplainer {
    private final KuduEventReader reader;
    private final Lookups unfiltered;
    private final PendingDatasets pending;
    private final Executor pool;

    /**
     * @param unfiltered a lookup of the same index (used with {@link LookupFilter#all()})
     * @param pool       runs the runs of a batch in parallel (the lookup's pool)
     */
    MissExplainer(KuduEventReader reader, Lookups unfiltered, PendingDatasets pending, Executor pool) {
        this.pool = requireNonNull(pool, "pool is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.unfiltered = requireNonNull(unfiltered, "unfiltered is null");
        this.pending = requireNonNull(pending, "pending is null");
    }

    /** {@code results} with an explanation on each miss; the others as they were. */
    List<LookupResult> explain(List<LookupResult> results, LookupFilter filter) {
        Set<EventKey> missed = new LinkedHashSet<>();
        results.stream().filter(LookupResult::missed).forEach(r -> missed.add(r.key()));
        if (missed.isEmpty()) {
            return results;
        }
        Map<EventKey, MissExplanation> why = new HashMap<>();
        if (!filter.equals(LookupFilter.all())) {
            List<EventKey> keys = List.copyOf(missed);
            List<LookupResult> again = unfiltered.lookup(keys, LookupFilter.all());
            for (LookupResult r : again) {
                if (r.found()) {
                    why.put(r.key(), new MissExplanation(List.of(filtered(r, filter)), null));
                    missed.remove(r.key());
                }
            }
        }
        Map<Integer, List<EventKey>> byRun = new LinkedHashMap<>();
        missed.forEach(k -> byRun.computeIfAbsent(k.run(), run -> new ArrayList<>()).add(k));
        if (!byRun.isEmpty()) {
            PendingDatasets.Answer supervisor = pending.pending(byRun.keySet());
            List<CompletableFuture<Map<EventKey, MissExplanation>>> runs = new ArrayList<>();
            for (Map.Entry<Integer, List<EventKey>> e : byRun.entrySet()) {
                Supplier<Map<EventKey, MissExplanation>> run = () -> explainRunOrSayWhyNot(e.getKey(), e.getValue(),
                        supervisor, filter);
                // one run (a GET /events miss) on the caller's thread, as its lookup
                runs.add(byRun.size() == 1 ? CompletableFuture.completedFuture(run.get())
                        : CompletableFuture.supplyAsync(run, pool));
            }
            runs.forEach(f -> why.putAll(f.join()));
        }
        List<LookupResult> out = new ArrayList<>(results.size());
        for (LookupResult r : results) {
            MissExplanation w = r.missed() ? why.get(r.key()) : null;
            out.add(w == null ? r : r.explainedBy(w));
        }
        return out;
    }

    private static Reason filtered(LookupResult unfilteredHit, LookupFilter filter) {
        Map<String, Set<String>> typesByDataset = new LinkedHashMap<>();
        for (LookupMatch m : unfilteredHit.matches()) {
            typesByDataset.computeIfAbsent(m.dataset(), d -> new TreeSet<>()).add(m.type());
        }
        List<DatasetNote> notes = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : typesByDataset.entrySet()) {
            notes.add(new DatasetNote(e.getKey(), "LOADED", "types " + String.join(",", e.getValue())
                    + "; excluded by " + filter.excludedBy(e.getKey(), e.getValue()), null));
        }
        return new Reason(Code.FILTERED, "found only where the filters exclude it: " + notes.stream()
                .map(DatasetNote::toString).collect(Collectors.joining(", ")), notes);
    }

    private Map<EventKey, MissExplanation> explainRunOrSayWhyNot(int run, List<EventKey> keys,
                                                                 PendingDatasets.Answer supervisor,
                                                                 LookupFilter filter) {
        try {
            return explainRun(run, keys, supervisor, filter);
        } catch (KuduException | RuntimeException ex) {
            // the miss stands; the explanation says why it could not be explained
            MissExplanation failed = new MissExplanation(List.of(new Reason(Code.UNEXPLAINED,
                    "could not be explained: reading run " + run + " failed: " + ex.getMessage(), List.of())),
                    supervisor.caveat());
            Map<EventKey, MissExplanation> out = new HashMap<>();
            keys.forEach(k -> out.put(k, failed));
            return out;
        }
    }

    /** Datasets not yet queryable are named only when the filters would select them: else they would not help. */
    private Map<EventKey, MissExplanation> explainRun(int run, List<EventKey> keys, PendingDatasets.Answer supervisor,
                                                      LookupFilter filter) throws KuduException {
        List<KuduEventReader.DatasetRow> rows = reader.allDatasets(run);
        List<LoadedDataset> loaded = rows.stream().map(KuduEventReader.DatasetRow::loaded)
                .filter(java.util.Objects::nonNull).toList();
        Map<String, DatasetNote> notYet = new LinkedHashMap<>();
        for (KuduEventReader.DatasetRow r : rows) {
            if (r.loaded() == null && filter.acceptsName(r.name())) {
                notYet.put(r.name(), new DatasetNote(r.name(), r.state().isEmpty() ? "NO_STATE" : r.state(),
                        "being loaded into Kudu" + (r.insertStart() != null ? " since " + r.insertStart() : "")
                                + ", or its load was interrupted; no estimate published", null));
            }
        }
        for (PendingDatasets.Pending p : supervisor.datasets()) {
            if (p.run() == run && filter.acceptsName(p.name())
                    && loaded.stream().noneMatch(d -> d.name().equals(p.name()))) {
                DatasetNote kudu = notYet.get(p.name());
                String estimate = p.queryable() != null ? "; queryable at about " + p.queryable() + " ("
                        + p.estimate() + ")" : p.estimate() != null ? "; " + p.estimate()
                        : "; no estimate published by the supervisor";
                String detail = p.missing() + estimate + (kudu != null ? "; in Kudu " + kudu.state() : "");
                notYet.put(p.name(), new DatasetNote(p.name(), p.state(), detail, p.queryable()));
            }
        }
        Reason notQueryable = notYet.isEmpty() ? null : new Reason(Code.NOT_YET_QUERYABLE,
                "not queryable yet: " + notYet.values().stream().map(DatasetNote::toString)
                        .collect(Collectors.joining(", ")), List.copyOf(notYet.values()));
        Map<EventKey, MissExplanation> out = new HashMap<>();
        if (loaded.isEmpty()) {
            Reason none = new Reason(Code.RUN_NOT_INDEXED, "no LOADED dataset holds run " + run, List.of());
            MissExplanation e = new MissExplanation(notQueryable == null ? List.of(none) : List.of(none, notQueryable),
                    supervisor.caveat());
            keys.forEach(k -> out.put(k, e));
            return out;
        }
        Map<LoadedDataset, Ranges> ranges = new LinkedHashMap<>();
        List<Long> events = keys.stream().map(EventKey::event).distinct().sorted().toList();
        for (LoadedDataset d : loaded) {
            ranges.put(d, ranges(run, d, events));
        }
        for (EventKey k : keys) {
            List<DatasetNote> outside = new ArrayList<>();
            List<DatasetNote> within = new ArrayList<>();
            for (Map.Entry<LoadedDataset, Ranges> e : ranges.entrySet()) {
                Ranges r = e.getValue();
                String name = e.getKey().name();
                if (r.empty()) {
                    outside.add(new DatasetNote(name, "LOADED", "no event of run " + run, null));
                } else if (k.event() < r.firstWithBelow()) {
                    outside.add(new DatasetNote(name, "LOADED", "below its first event", null));
                } else if (k.event() > r.lastWithAbove()) {
                    outside.add(new DatasetNote(name, "LOADED", "above its last event", null));
                } else {
                    within.add(new DatasetNote(name, "LOADED", "within its event range, not in it", null));
                }
            }
            Reason range = within.isEmpty()
                    ? new Reason(Code.OUTSIDE_RANGES, "run " + run + " is indexed, but event "
                    + Long.toUnsignedString(k.event()) + " is outside the event range of every LOADED dataset of it: "
                    + join(outside), outside)
                    : new Reason(Code.WITHIN_RANGES, "run " + run + " is indexed and event "
                    + Long.toUnsignedString(k.event()) + " is within the event range of " + join(within)
                    + ", but no such event was indexed", within);
            out.put(k, new MissExplanation(notQueryable == null ? List.of(range) : List.of(range, notQueryable),
                    supervisor.caveat()));
        }
        return out;
    }

    private static String join(List<DatasetNote> notes) {
        return notes.stream().map(DatasetNote::toString).collect(Collectors.joining(", "));
    }

    /**
     * Where a dataset's range lies among the sorted missed events: an event is below the dataset's first event when
     * it is below {@code firstWithBelow} (the smallest missed event with a row below it), above its last when above
     * {@code lastWithAbove}.
     */
    private record Ranges(boolean empty, long firstWithBelow, long lastWithAbove) {
    }

    private Ranges ranges(int run, LoadedDataset d, List<Long> sorted) throws KuduException {
        Integer rowRun = d.simulation() ? null : run;
        boolean mc = d.simulation();
        if (!reader.hasEventBeyond(mc, d, rowRun, null, false)) {
            // the loader decides the table by the content: the other one
            mc = !mc;
            if (!reader.hasEventBeyond(mc, d, rowRun, null, false)) {
                return new Ranges(true, 0, 0);
            }
        }
        // hasBelow(e) is false up to the dataset's first event, then true: the first missed event with a row below.
        // The smallest missed event is tried first: misses of a run in one batch mostly lie on one side.
        int lo = 0;
        int hi = sorted.size();
        if (reader.hasEventBeyond(mc, d, rowRun, sorted.get(0), false)) {
            hi = 0;
        } else {
            lo = 1;
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (reader.hasEventBeyond(mc, d, rowRun, sorted.get(mid), false)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        long firstWithBelow = lo < sorted.size() ? sorted.get(lo) : Long.MAX_VALUE;
        // hasAbove(e) is true up to the dataset's last event, then false: the last missed event with a row above
        lo = 0;
        hi = sorted.size();
        if (reader.hasEventBeyond(mc, d, rowRun, sorted.get(0), true)) {
            lo = 1;
        } else {
            hi = 0;
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (reader.hasEventBeyond(mc, d, rowRun, sorted.get(mid), true)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        long lastWithAbove = lo > 0 ? sorted.get(lo - 1) : Long.MIN_VALUE;
        return new Ranges(false, firstWithBelow, lastWithAbove);
    }
}
