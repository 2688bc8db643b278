package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kudu.client.KuduException;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * A dataset's status through the whole flow, from the two places that know it: Kudu's DATASETS (LOADING, LOADED,
 * the load's times and count) and the supervisor's {@code /progress} (collecting, complete, signalled, taken by a
 * consumer, failed; the stage times and the estimate of when it will be loaded). DATASETS decides once it has the
 * row; the supervisor before. Without a supervisor (none configured, none answering) the Kudu rows alone are
 * shown, with a caveat.
 */
final class DatasetStatuses {
    /**
     * Statuses and what could not be seen.
     *
     * @param caveat null when the supervisor answered; else why the datasets it alone knows are missing
     */
    record Answer(List<DatasetStatus> datasets, String caveat) {
        Answer {
            datasets = List.copyOf(datasets);
        }
    }

    private final DatasetRows rows;
    private final SupervisorDatasets supervisor;
    private final Clock clock;

    /** @param supervisor null: none configured */
    DatasetStatuses(DatasetRows rows, SupervisorDatasets supervisor, Clock clock) {
        this.rows = requireNonNull(rows, "rows is null");
        this.supervisor = supervisor;
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * The datasets whose name matches {@code glob} (null: all), sorted by name.
     *
     * @throws KuduException when DATASETS cannot be read
     * @throws IllegalArgumentException for a malformed glob
     */
    Answer matching(String glob) throws KuduException {
        Pattern p = glob == null ? null : LookupFilter.glob(glob);
        Map<String, DatasetRows.Row> kudu = new TreeMap<>();
        for (DatasetRows.Row r : rows.rows(p)) {
            kudu.put(r.name(), r);
        }
        Map<String, JsonNode> sup = new TreeMap<>();
        String caveat = null;
        JsonNode rate = null;
        if (supervisor == null) {
            caveat = "datasets still at the supervisor are not known: no --supervisor-url";
        } else {
            try {
                JsonNode progress = supervisor.first("/progress");
                rate = progress.path("rate");
                for (JsonNode d : progress.path("datasets")) {
                    String name = d.path("dataset").asText();
                    if (p == null || p.matcher(name).matches()) {
                        sup.put(name, d);
                    }
                }
            } catch (IOException e) {
                caveat = "datasets still at the supervisor are not known: " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                caveat = "datasets still at the supervisor are not known: interrupted";
            }
        }
        TreeMap<String, DatasetStatus> out = new TreeMap<>();
        Instant now = clock.instant();
        for (String name : union(kudu.keySet(), sup.keySet())) {
            out.put(name, status(name, kudu.get(name), sup.get(name), rate, caveat, now));
        }
        return new Answer(new ArrayList<>(out.values()), caveat);
    }

    /**
     * One dataset by its exact name; empty when neither DATASETS nor the supervisor knows it (with no supervisor
     * answering, an UNKNOWN status saying so instead).
     */
    Optional<DatasetStatus> named(String name) throws KuduException {
        Answer a = matching(name.replace("*", "?")); // a name holds no glob characters; '*' cannot match itself
        Optional<DatasetStatus> found = a.datasets().stream().filter(d -> d.dataset().equals(name)).findFirst();
        if (found.isEmpty() && a.caveat() != null) {
            return Optional.of(new DatasetStatus(name, "UNKNOWN", "not in DATASETS; " + a.caveat(),
                    new DatasetStatus.Objects(null, 0), null, stages(null, null, null, null, null, clock.instant()),
                    new DatasetStatus.Estimate(null, null, a.caveat())));
        }
        return found;
    }

    private static List<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.TreeSet<String> all = new java.util.TreeSet<>(a);
        all.addAll(b);
        return new ArrayList<>(all);
    }

    static DatasetStatus status(String name, DatasetRows.Row row, JsonNode sup, JsonNode rate, String caveat,
                                Instant now) {
        String supState = sup == null ? null : sup.path("state").asText();
        Instant firstObject = time(sup, "firstObjectAt");
        Instant complete = time(sup, "completeAt");
        Instant taken = time(sup, "takenAt");
        Instant done = time(sup, "doneAt");
        Instant loadStart = row == null ? null : row.insertStart();
        Instant loadEnd = row == null ? null : row.insertEnd();
        String state;
        String detail;
        if (row != null && "LOADED".equals(row.state())) {
            state = "QUERYABLE";
            if (loadEnd == null) {
                loadEnd = done;
            }
            detail = "LOADED in DATASETS" + (row.rgid() == null ? "" : " (epoch " + row.rgid() + ")");
        } else if (row != null && "LOADING".equals(row.state())) {
            state = "LOADING";
            detail = "LOADING in DATASETS since " + loadStart + ": being loaded, or a load was interrupted";
            loadEnd = null;
        } else if (sup != null) {
            switch (supState) {
                case "COLLECTING", "HELD" -> state = "COLLECTING";
                case "SIGNAL_PLANNED" -> state = "COMPLETE";
                case "SIGNALLED" -> state = taken == null ? "SIGNALLED" : "CONSOLIDATING";
                case "FAILED_CONSUMER" -> state = "FAILED";
                default -> state = "UNKNOWN";
            }
            detail = switch (state) {
                case "COLLECTING" -> "HELD".equals(supState) ? "attempts of a file disagree: waiting for an operator"
                        : SupervisorDatasets.missing(summary(sup));
                case "COMPLETE" -> "every file has its object; the signal to the consumers is being sent";
                case "SIGNALLED" -> "waiting for a consumer to take it";
                case "CONSOLIDATING" -> "consumer " + sup.path("consumer").asText("?")
                        + " is reading its objects and writing its consolidated file, since " + taken;
                case "FAILED" -> sup.path("basis").asText();
                default -> "the supervisor has it " + supState + " but DATASETS has no row of it (deleted, or"
                        + " another --prefix?)";
            };
            if (row != null) {
                detail += "; DATASETS: " + row.state();
            }
        } else {
            state = "UNKNOWN";
            detail = "DATASETS has it " + row.state() + (caveat == null ? "; the supervisor does not track it"
                    : "; " + caveat);
        }
        Integer expectedFiles = sup == null || sup.path("expectedFiles").asInt(-1) < 0 ? null
                : sup.path("expectedFiles").asInt();
        int received = sup == null ? 0 : sup.path("filesWithCandidate").asInt();
        Long events;
        if ("QUERYABLE".equals(state) && row.countEvents() != null) {
            events = row.countEvents();
        } else if (sup != null && sup.path("expectedEvents").asLong() > 0) {
            events = sup.path("expectedEvents").asLong();
        } else {
            events = row == null ? null : row.countEvents();
        }
        DatasetStatus.Estimate estimate;
        if ("QUERYABLE".equals(state)) {
            estimate = new DatasetStatus.Estimate(text(loadEnd), 0.0, "queryable"
                    + (loadEnd == null ? "" : " since " + loadEnd));
        } else if (sup != null) {
            Instant at = time(sup, "queryableAt");
            estimate = new DatasetStatus.Estimate(text(at), at == null ? null
                    : Math.max(0, Duration.between(now, at).toMillis()) / 1000.0, sup.path("basis").asText());
        } else {
            estimate = new DatasetStatus.Estimate(null, null, caveat != null ? "no estimate: " + caveat
                    : "no estimate: the supervisor does not track it");
        }
        return new DatasetStatus(name, state, detail, new DatasetStatus.Objects(expectedFiles, received), events,
                stages(firstObject, complete, taken, loadStart, loadEnd, now), estimate);
    }

    /** The supervisor's {@code /progress} entry in the field names of a {@code /datasets} line. */
    private static JsonNode summary(JsonNode sup) {
        com.fasterxml.jackson.databind.node.ObjectNode n = LookupJson.MAPPER.createObjectNode();
        n.put("state", sup.path("state").asText());
        n.put("expectedFiles", sup.path("expectedFiles").asInt(-1));
        n.put("filesWithCandidate", sup.path("filesWithCandidate").asInt());
        return n;
    }

    /**
     * The five stages, each from its start to the next one's: collecting from the first object to complete, signalled
     * from complete to a consumer taking it, consolidating to the load's start, loading to its end, queryable from
     * then. A stage started whose end is unknown while a later one is known (a restarted supervisor lost the
     * heartbeat that said when a consumer took it) has no seconds; the stage in progress counts up to now.
     */
    private static List<DatasetStatus.Stage> stages(Instant firstObject, Instant complete, Instant taken,
                                                    Instant loadStart, Instant loadEnd, Instant now) {
        Instant[] bounds = {firstObject, complete, taken, loadStart, loadEnd, null};
        List<DatasetStatus.Stage> out = new ArrayList<>();
        for (int i = 0; i < DatasetStatus.STAGES.size(); i++) {
            Instant start = bounds[i];
            Instant end = bounds[i + 1];
            boolean laterKnown = false;
            for (int j = i + 2; j < bounds.length; j++) {
                laterKnown |= bounds[j] != null;
            }
            Double seconds = start == null ? null : end != null ? Duration.between(start, end).toMillis() / 1000.0
                    : laterKnown ? null : Duration.between(start, now).toMillis() / 1000.0;
            out.add(new DatasetStatus.Stage(DatasetStatus.STAGES.get(i), text(start), text(end), seconds));
        }
        return out;
    }

    private static Instant time(JsonNode n, String field) {
        if (n == null || !n.hasNonNull(field)) {
            return null;
        }
        try {
            return Instant.parse(n.get(field).asText());
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }
}
