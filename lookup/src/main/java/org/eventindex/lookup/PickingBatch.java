package org.eventindex.lookup;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code POST /lookup} as the workload system sends it: a list of {@code run event} lines in which the same
 * event may come more than once. Each distinct event is looked up once, in the order of its first line; a repeated
 * event is reported under {@code duplicates}, a malformed line under {@code errors}.
 *
 * @param keys       the distinct events, in first-seen order
 * @param duplicates {@code source: 'run event' appears N times; looked up once}, one per repeated event
 */
record PickingBatch(LookupInput input, List<EventKey> keys, List<String> duplicates) {
    PickingBatch {
        keys = List.copyOf(keys);
        duplicates = List.copyOf(duplicates);
    }

    static PickingBatch of(LookupInput input, String source) {
        Map<EventKey, Integer> times = new LinkedHashMap<>();
        input.keys().forEach(k -> times.merge(k, 1, Integer::sum));
        List<String> duplicates = new ArrayList<>();
        times.forEach((k, n) -> {
            if (n > 1) {
                duplicates.add(source + ": '" + k.text() + "' appears " + n + " times; looked up once");
            }
        });
        return new PickingBatch(input, List.copyOf(times.keySet()), duplicates);
    }

    /** {@code {"results":[...],"errors":[...],"duplicates":[...]}} */
    ObjectNode toJson(List<LookupResult> results) {
        ObjectNode o = LookupJson.MAPPER.createObjectNode();
        ArrayNode rs = o.putArray("results");
        results.forEach(r -> rs.add(LookupJson.toJson(r)));
        ArrayNode errors = o.putArray("errors");
        input.errors().forEach(e -> errors.add(e.message()));
        ArrayNode dups = o.putArray("duplicates");
        duplicates.forEach(dups::add);
        return o;
    }
}
