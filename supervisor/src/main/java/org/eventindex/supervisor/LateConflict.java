package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A late object's claim on an input file that disagrees with the claim the dataset's signal took for the same file:
 * another event count, or other run ranges when both claims have them. A late object is never read (the dataset is
 * loaded from the signalled one), so without this nobody would learn that two attempts of a file disagree once the
 * signal is out; before the signal the same disagreement would have held the dataset (without a catalogue count) or
 * made one of the claims invalid (with one). Information for operators: the dataset's state does not change. If the
 * signalled object is the wrong one, {@code invalidate} it and the dataset is selected again.
 * <p>
 * Derived from the journal: from the late object's claims and the signal in force when it was reported (a late object
 * is one reported while the dataset has a signal, and a signal is only replaced after it is superseded, which also
 * forgets the late objects), so a replay and a checkpoint's restore give the same list.
 *
 * @param url             the late object
 * @param guid            the input file
 * @param signalledUrl    the object the signal reads the file from
 * @param signalledEvents the signalled claim's count: what the consumer loads
 * @param lateEvents      the late object's count
 * @param signalledRanges the signalled claim's run ranges; null when its producer sent none
 * @param lateRanges      the late claim's run ranges; null when its producer sent none
 */
public record LateConflict(String url, String guid, String signalledUrl, long signalledEvents, long lateEvents,
                           Map<String, EventRange> signalledRanges, Map<String, EventRange> lateRanges) {

    public LateConflict {
        Objects.requireNonNull(url, "url is null");
        Objects.requireNonNull(guid, "guid is null");
    }

    /**
     * The claims of {@code late}, a late object of {@code d}, that disagree with the claims of {@code d}'s signal, in
     * the object's order (a GUID it lists twice counts once, as the selection takes it). GUIDs the signal does not
     * take (outside the file list) are not compared. Costs the signal's files.
     */
    static List<LateConflict> of(TrackedDataset d, Candidate late) {
        if (d.signal == null) {
            return List.of();
        }
        // a signal planned before signals carried their claims: read them from the selected objects themselves
        boolean withoutFiles = d.signal.objects().stream().anyMatch(o -> o.files() == null);
        return compare(signalledClaims(d.signal, withoutFiles ? byUrl(d.candidates) : Map.of()), late);
    }

    /** Every late object's conflicts, in the order the late objects were reported (a checkpoint's restore). */
    static List<LateConflict> all(TrackedDataset d) {
        if (d.signal == null || d.lateObjects.isEmpty()) {
            return List.of();
        }
        Map<String, Candidate> byUrl = byUrl(d.candidates);
        Map<String, Signalled> taken = signalledClaims(d.signal, byUrl);
        List<LateConflict> out = new ArrayList<>();
        for (String url : d.lateObjects) {
            Candidate late = byUrl.get(url);
            if (late != null) {
                out.addAll(compare(taken, late));
            }
        }
        return out;
    }

    /** The claims of {@code late} that disagree with {@code taken}, the signal's claim per GUID. */
    private static List<LateConflict> compare(Map<String, Signalled> taken, Candidate late) {
        List<LateConflict> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (GuidInfo g : late.guids()) {
            if (g == null || g.guid() == null || !seen.add(g.guid())) {
                continue;
            }
            Signalled s = taken.get(g.guid());
            if (s != null && disagree(s.nevents(), s.ranges(), g.nevents(), g.runevtRanges())) {
                out.add(new LateConflict(late.url(), g.guid(), s.url(), s.nevents(), g.nevents(), s.ranges(),
                        g.runevtRanges()));
            }
        }
        return out;
    }

    private static Map<String, Candidate> byUrl(List<Candidate> candidates) {
        Map<String, Candidate> byUrl = new HashMap<>();
        candidates.forEach(c -> byUrl.putIfAbsent(c.url(), c));
        return byUrl;
    }

    /** One line for operators: the file, both objects and both claims. */
    String describe() {
        String ranges = signalledEvents == lateEvents ? " with other run ranges (" + lateRanges + " against "
                + signalledRanges + ")" : "";
        return "GUID " + guid + ": the late object claims " + lateEvents + " events" + ranges + ", the signal takes "
                + signalledEvents + " from " + signalledUrl;
    }

    /** Counts differ, or both claims have run ranges and they differ. */
    private static boolean disagree(long signalledEvents, Map<String, EventRange> signalledRanges, long lateEvents,
                                    Map<String, EventRange> lateRanges) {
        if (signalledEvents != lateEvents) {
            return true;
        }
        return signalledRanges != null && !signalledRanges.isEmpty() && lateRanges != null && !lateRanges.isEmpty()
                && !signalledRanges.equals(lateRanges);
    }

    private record Signalled(String url, long nevents, Map<String, EventRange> ranges) {
    }

    /** The signal's claim per GUID: its {@code files}, or the selected object's own claims for a signal without. */
    private static Map<String, Signalled> signalledClaims(ConsumerSignal signal, Map<String, Candidate> candidates) {
        Map<String, Signalled> taken = new HashMap<>();
        for (SignalObject o : signal.objects()) {
            if (o.files() != null) {
                for (SignalFile f : o.files()) {
                    taken.putIfAbsent(f.guid(), new Signalled(o.url(), f.nevents(), f.runevtRanges()));
                }
                continue;
            }
            Candidate c = candidates.get(o.url());
            if (c == null) {
                continue;
            }
            Set<String> chosen = Set.copyOf(o.guids());
            for (GuidInfo g : c.guids()) {
                if (g != null && g.guid() != null && chosen.contains(g.guid())) {
                    taken.putIfAbsent(g.guid(), new Signalled(o.url(), g.nevents(), g.runevtRanges()));
                }
            }
        }
        return taken;
    }
}
