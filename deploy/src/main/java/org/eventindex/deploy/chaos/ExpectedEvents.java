package org.eventindex.deploy.chaos;

import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.message.DatasetManifest;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbReader;
import org.eventindex.spb.SpbRecord;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What Kudu must hold for one generated dataset, read back from the SPB files the producers published (not from the
 * generator's counts): every input file of the manifest contributes its events once (whichever job attempt indexed
 * it: retries hold the same events); the first occurrence of a (run, event) belongs in EVENTS (MCEVENTS for
 * simulation), every further occurrence in DUPLICATEDEVENTS.
 *
 * @param unique     the (run, event) keys EVENTS must hold, each exactly once
 * @param duplicates per key, how many rows DUPLICATEDEVENTS must hold
 */
record ExpectedEvents(String dataset, Set<EventKey> unique, Map<EventKey, Integer> duplicates) {

    /** One event's identity within a dataset. */
    record EventKey(int run, long event) implements Comparable<EventKey> {
        @Override
        public int compareTo(EventKey o) {
            int c = Integer.compare(run, o.run);
            return c != 0 ? c : Long.compare(event, o.event);
        }

        @Override
        public String toString() {
            return run + "/" + event;
        }
    }

    static ExpectedEvents of(GeneratedDataset ds) throws IOException {
        Map<String, List<EventKey>> byGuid = new HashMap<>();
        for (GeneratedJob job : ds.jobs(GeneratedJob.Outcome.REPORTED)) {
            if (byGuid.keySet().containsAll(job.guids())) {
                continue;
            }
            try (SpbReader reader = SpbReader.open(job.spbFile(), SpbLimits.DEFAULT)) {
                String guid = null;
                List<EventKey> events = null;
                for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
                    if (r instanceof SpbRecord.BeginGuid b) {
                        guid = b.message().getGuid();
                        events = new ArrayList<>();
                    } else if (r instanceof SpbRecord.Event e && events != null) {
                        events.add(new EventKey(e.message().getRunNumber(), e.message().getEventNumber()));
                    } else if (r instanceof SpbRecord.EndGuid && guid != null) {
                        byGuid.putIfAbsent(guid, events);
                        guid = null;
                        events = null;
                    }
                }
            }
        }
        Set<EventKey> unique = new HashSet<>();
        Map<EventKey, Integer> duplicates = new HashMap<>();
        for (DatasetManifest.ManifestFile f : ds.manifest()) {
            List<EventKey> events = byGuid.get(f.guid());
            if (events == null) {
                throw new IllegalStateException(ds.datasetName() + ": no reported job indexes file " + f.guid());
            }
            for (EventKey k : events) {
                if (!unique.add(k)) {
                    duplicates.merge(k, 1, Integer::sum);
                }
            }
        }
        if (unique.size() != ds.expectedUniqueEvents()) {
            throw new IllegalStateException(ds.datasetName() + ": the SPB files hold " + unique.size()
                    + " unique events but the generator expects " + ds.expectedUniqueEvents());
        }
        return new ExpectedEvents(ds.datasetName(), Set.copyOf(unique), Map.copyOf(duplicates));
    }

    long duplicateRows() {
        return duplicates.values().stream().mapToLong(Integer::longValue).sum();
    }
}
