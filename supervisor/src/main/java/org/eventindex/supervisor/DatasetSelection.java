package org.eventindex.supervisor;

import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The selection policy, as a pure function of a dataset's manifest and the candidate objects in journal order.
 * <p>
 * Per input file (GUID) exactly one object is chosen: a claim is <em>valid</em> when the manifest gives no event
 * count for the file ({@code nevents < 0}) or the claim's {@code nevents} equals it; among the valid claims the
 * earliest reported (lowest journal sequence number) wins. Journal order is total, so there are no ties. Objects that
 * win no file are never signalled; GUIDs outside the manifest are never consumed. Without a manifest every claim is
 * valid (the result then only informs operators; a dataset is never complete without a manifest).
 * <p>
 * When the manifest gives no count for a file and valid claims on it disagree (two objects report different event
 * counts for the same GUID), nothing can arbitrate: the file is a {@link Conflict} and the dataset is not complete
 * (it is held for an operator, who invalidates the wrong object, or for a catalogue count).
 */
final class DatasetSelection {
    private static final Comparator<GuidInfo> FILE_ORDER =
            Comparator.comparingInt(GuidInfo::fileno).thenComparing(GuidInfo::guid);

    private DatasetSelection() {
    }

    /**
     * @param manifestFiles the manifest's files, or null when no manifest is registered
     * @param candidates    the objects reported for the dataset (any order; sorted by journal sequence here)
     */
    static Selection select(List<ManifestFile> manifestFiles, List<Candidate> candidates) {
        List<Candidate> ordered = new ArrayList<>(candidates);
        ordered.sort(Comparator.comparingLong(Candidate::seq));

        Map<String, Long> expected = null;
        if (manifestFiles != null) {
            expected = new LinkedHashMap<>();
            for (ManifestFile f : manifestFiles) {
                expected.putIfAbsent(f.guid(), f.nevents());
            }
        }

        Map<String, Map<String, Long>> claimsWithoutCount = new LinkedHashMap<>();
        Map<String, Candidate> winner = new LinkedHashMap<>();
        Map<String, GuidInfo> winningClaim = new HashMap<>();
        List<InvalidClaim> invalid = new ArrayList<>();
        Set<String> unexpected = new TreeSet<>();
        for (Candidate c : ordered) {
            Set<String> seenInObject = new LinkedHashSet<>();
            for (GuidInfo g : c.guids()) {
                if (g == null || g.guid() == null || !seenInObject.add(g.guid())) {
                    continue;
                }
                if (expected != null && !expected.containsKey(g.guid())) {
                    unexpected.add(g.guid());
                    continue;
                }
                long want = expected == null ? -1 : expected.get(g.guid());
                if (want >= 0 && g.nevents() != want) {
                    invalid.add(new InvalidClaim(c.url(), g.guid(), want, g.nevents()));
                    continue;
                }
                if (want < 0) {
                    claimsWithoutCount.computeIfAbsent(g.guid(), k -> new LinkedHashMap<>()).put(c.url(), g.nevents());
                }
                if (!winner.containsKey(g.guid())) {
                    winner.put(g.guid(), c);
                    winningClaim.put(g.guid(), g);
                }
            }
        }

        return assemble(expected, winner, winningClaim, invalid, unexpected, claimsWithoutCount, ordered);
    }

    /**
     * The selection from its fold over the candidates (shared with {@link LiveSelection}, which keeps the fold up to
     * date per candidate).
     *
     * @param expected           manifest GUID -> count (first mention), in manifest order; null without a manifest
     * @param winner             GUID -> the earliest valid claim's object, in the order the GUIDs were first won
     * @param winningClaim       GUID -> that object's claim on it
     * @param invalid            refused claims in journal order
     * @param unexpected         GUIDs outside the manifest
     * @param claimsWithoutCount GUID without a manifest count -> object URL -> claimed count, in journal order
     * @param ordered            the candidates in journal order
     */
    static Selection assemble(Map<String, Long> expected, Map<String, Candidate> winner,
                              Map<String, GuidInfo> winningClaim, List<InvalidClaim> invalid,
                              Set<String> unexpected, Map<String, Map<String, Long>> claimsWithoutCount,
                              List<Candidate> ordered) {
        Map<String, String> chosen = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        Iterable<String> fileOrder = expected != null ? expected.keySet() : winner.keySet();
        for (String guid : fileOrder) {
            Candidate c = winner.get(guid);
            if (c == null) {
                missing.add(guid);
            } else {
                chosen.put(guid, c.url());
            }
        }

        Map<String, List<GuidInfo>> perObject = new TreeMap<>();
        Map<String, Candidate> byUrl = new HashMap<>();
        for (Map.Entry<String, Candidate> e : winner.entrySet()) {
            perObject.computeIfAbsent(e.getValue().url(), u -> new ArrayList<>()).add(winningClaim.get(e.getKey()));
            byUrl.put(e.getValue().url(), e.getValue());
        }
        List<SignalObject> objects = new ArrayList<>(perObject.size());
        long total = 0;
        for (Map.Entry<String, List<GuidInfo>> e : perObject.entrySet()) {
            List<GuidInfo> claims = e.getValue();
            claims.sort(FILE_ORDER);
            long events = claims.stream().mapToLong(GuidInfo::nevents).sum();
            total += events;
            Candidate c = byUrl.get(e.getKey());
            // the winning claims themselves, run ranges included: the consumer checks the object's content against
            // what its producer reported before it writes anything
            objects.add(new SignalObject(e.getKey(), c.size(), c.usize(), claims.stream().map(GuidInfo::guid).toList(),
                    events, claims.stream().map(SignalFile::of).toList()));
        }
        List<String> unused = new ArrayList<>();
        for (Candidate c : ordered) {
            if (!perObject.containsKey(c.url())) {
                unused.add(c.url());
            }
        }
        List<Conflict> conflicts = new ArrayList<>();
        for (Map.Entry<String, Map<String, Long>> e : claimsWithoutCount.entrySet()) {
            if (new HashSet<>(e.getValue().values()).size() > 1) {
                conflicts.add(new Conflict(e.getKey(), e.getValue()));
            }
        }
        return new Selection(expected == null ? -1 : expected.size(), chosen, missing, invalid,
                List.copyOf(unexpected), objects, unused, total, conflicts);
    }
}
