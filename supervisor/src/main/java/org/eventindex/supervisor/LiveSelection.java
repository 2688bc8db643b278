package org.eventindex.supervisor;

import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.GuidInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@link DatasetSelection#select} kept up to date one candidate at a time, for the live path: a new object costs the
 * work of its own GUIDs, not of the whole dataset (issue 22 item 6, decision 0035).
 * <p>
 * It folds what the batch function folds (per GUID the earliest valid claim, the refused claims, the GUIDs outside
 * the manifest, the claims on GUIDs without a count) and answers {@link #complete()} and {@link #held()} from counters.
 * {@link #selection()} assembles the full {@link Selection} with the batch function's own assembly, so both give the
 * same result; {@code LiveSelectionTest} checks that on random datasets.
 * <p>
 * It follows a dataset's record by itself: {@link #sync} folds the candidates appended since the last call, and starts
 * again from scratch when what the fold depends on changed in a way an increment cannot express: another manifest
 * (compared by identity), another invalid object, a candidate out of journal order, or a shorter candidate list. Those
 * are rare (an operator's command, a catalogue update). Object URLs are unique within a dataset, as its record keeps
 * them. Not thread-safe: used under the engine's lock.
 */
final class LiveSelection {
    private List<ManifestFile> manifest;
    private Map<String, Long> expected;
    private final Map<String, Candidate> winner = new LinkedHashMap<>();
    private final Map<String, GuidInfo> winningClaim = new HashMap<>();
    private final List<InvalidClaim> invalid = new ArrayList<>();
    private final Set<String> unexpected = new TreeSet<>();
    private final Map<String, Map<String, Long>> claimsWithoutCount = new LinkedHashMap<>();
    /** GUIDs whose claims in {@link #claimsWithoutCount} disagree. */
    private final Set<String> conflicted = new HashSet<>();
    /** The valid candidates folded so far, in journal order. */
    private final List<Candidate> folded = new ArrayList<>();
    /** How much of the dataset's candidate list and invalid objects is folded in. */
    private int candidatesSeen;
    private int invalidSeen;
    private boolean started;

    /**
     * Brings the fold up to date with a dataset's record.
     *
     * @param manifestFiles  the manifest's files, null without one
     * @param candidates     every object reported, in journal order; only ever appended to
     * @param invalidObjects URLs never to be selected; only ever added to
     */
    void sync(List<ManifestFile> manifestFiles, List<Candidate> candidates, Map<String, String> invalidObjects) {
        if (!started || manifestFiles != manifest || invalidObjects.size() != invalidSeen
                || candidates.size() < candidatesSeen) {
            reset(manifestFiles, invalidObjects.size());
        }
        for (int i = candidatesSeen; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            if (!folded.isEmpty() && c.seq() <= folded.get(folded.size() - 1).seq()) {
                // not in journal order (a hand-made record): fold the whole list again, sorted like the batch
                reset(manifestFiles, invalidObjects.size());
                List<Candidate> sorted = new ArrayList<>(candidates);
                sorted.sort(Comparator.comparingLong(Candidate::seq));
                sorted.stream().filter(s -> !invalidObjects.containsKey(s.url())).forEach(this::fold);
                candidatesSeen = candidates.size();
                return;
            }
            if (!invalidObjects.containsKey(c.url())) {
                fold(c);
            }
        }
        candidatesSeen = candidates.size();
    }

    /** Whether the selection is complete: a manifest, a valid claim on each of its files, no conflict. */
    boolean complete() {
        return expected != null && !expected.isEmpty() && winner.size() == expected.size() && conflicted.isEmpty();
    }

    /** Whether claims disagree on a file without a count (an operator must decide). */
    boolean held() {
        return !conflicted.isEmpty();
    }

    /**
     * Whether the selection would be complete once {@code c} (a new object, later in the journal than every folded
     * one) is added; nothing changes. Costs the candidate's GUIDs.
     */
    boolean completeWith(Candidate c) {
        if (expected == null || expected.isEmpty() || held()) {
            return false;
        }
        int won = 0;
        Set<String> seen = new HashSet<>();
        for (GuidInfo g : c.guids()) {
            if (g == null || g.guid() == null || !seen.add(g.guid()) || !expected.containsKey(g.guid())) {
                continue;
            }
            long want = expected.get(g.guid());
            if (want >= 0 && g.nevents() != want) {
                continue;
            }
            if (want < 0 && disagrees(claimsWithoutCount.get(g.guid()), g.nevents())) {
                return false;
            }
            if (!winner.containsKey(g.guid())) {
                won++;
            }
        }
        return winner.size() + won == expected.size();
    }

    /** The full selection, as {@link DatasetSelection#select} gives it for the folded candidates. */
    Selection selection() {
        return DatasetSelection.assemble(expected, winner, winningClaim, invalid, unexpected, claimsWithoutCount,
                folded);
    }

    private void reset(List<ManifestFile> manifestFiles, int invalidCount) {
        started = true;
        manifest = manifestFiles;
        invalidSeen = invalidCount;
        candidatesSeen = 0;
        expected = null;
        if (manifestFiles != null) {
            expected = new LinkedHashMap<>();
            for (ManifestFile f : manifestFiles) {
                expected.putIfAbsent(f.guid(), f.nevents());
            }
        }
        winner.clear();
        winningClaim.clear();
        invalid.clear();
        unexpected.clear();
        claimsWithoutCount.clear();
        conflicted.clear();
        folded.clear();
    }

    /**
     * One candidate's claims, exactly as the batch function takes them. Written apart from
     * {@link DatasetSelection#select} on purpose: that one is the reference {@code LiveSelectionTest} checks this
     * against, so the two must not share the rule.
     */
    private void fold(Candidate c) {
        folded.add(c);
        Set<String> seenInObject = new HashSet<>();
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
                Map<String, Long> claims = claimsWithoutCount.computeIfAbsent(g.guid(), k -> new LinkedHashMap<>());
                if (disagrees(claims, g.nevents())) {
                    conflicted.add(g.guid());
                }
                claims.put(c.url(), g.nevents());
            }
            if (!winner.containsKey(g.guid())) {
                winner.put(g.guid(), c);
                winningClaim.put(g.guid(), g);
            }
        }
    }

    /** Whether a claim of {@code nevents} disagrees with an earlier claim on the same file. */
    private static boolean disagrees(Map<String, Long> claims, long nevents) {
        return claims != null && !claims.isEmpty() && claims.values().iterator().next() != nevents;
    }
}
