package org.eventindex.lookup;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.names.DatasetName;
import org.eventindex.names.TriggerMask;
import org.eventindex.ops.QueryString;

import java.math.BigInteger;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * A dataset's figures for the physicists' page, as JSON ({@code GET}, under {@code /datasets/}):
 * <ul>
 *   <li>{@code /datasets/{name}/triggers}: TRIGGERCOUNT's diagonal, the events in which each trigger fired,
 *       largest first, with its name;</li>
 *   <li>{@code /datasets/{name}/trigger-overlaps?limit=N}: the events in which two triggers fired together, as a
 *       symmetric matrix over the {@code N} (default 20, at most 64) triggers that fired most, with their names;</li>
 *   <li>{@code /datasets/{name}/counts?by=run|lumiblock}: events per run, or per run and lumiblock;</li>
 *   <li>{@code /datasets/{name}/duplicates?limit=N}: the first {@code N} (default 100, at most 1,000)
 *       DUPLICATEDEVENTS rows, each next to the file of the event's first occurrence.</li>
 * </ul>
 * Only LOADED datasets have figures (a load in progress leaves partial rows): another state is a 404 naming it, as
 * is an unknown dataset. A malformed name or parameter is a 400, a failed Kudu read a 502.
 * <p>
 * Trigger ids are TRIGGERCOUNT's: L1 item {@code i} (TAV) is {@code i}, HLT chain {@code j} (passed physics) is
 * {@code 512 + j}. Kudu holds no trigger menu, so a trigger is named by its place in the mask ({@link #triggerName}).
 */
final class DatasetFigures {
    /** The last path segments this class answers, after {@code /datasets/{name}/}. */
    private static final Set<String> FIGURES = Set.of("triggers", "trigger-overlaps", "counts", "duplicates");
    private static final String PREFIX = "/datasets/";
    static final int DEFAULT_MATRIX = 20;
    static final int MAX_MATRIX = 64;
    static final int DEFAULT_DUPLICATES = 100;
    static final int MAX_DUPLICATES = 1_000;

    /** What to send: a status and a JSON body. */
    record Answer(int status, ObjectNode body) {
    }

    private final Supplier<KuduClient> client;
    private final KuduTablesConfig tables;
    private DatasetFigureReader reader;

    /** @param client the lookup's Kudu client, asked for at the first request (the service may still wait for it) */
    DatasetFigures(Supplier<KuduClient> client, KuduTablesConfig tables) {
        this.client = requireNonNull(client, "client is null");
        this.tables = requireNonNull(tables, "tables is null");
    }

    /**
     * Whether {@code uri} names a figure, {@code /datasets/{name}/} and one of them: the routing of the service's
     * {@code /datasets} context, which also serves a dataset's status (issue 35 item 2).
     */
    static boolean isFigure(URI uri) {
        String path = uri.getRawPath();
        int slash = path.lastIndexOf('/');
        return path.startsWith(PREFIX) && slash > PREFIX.length() && FIGURES.contains(path.substring(slash + 1));
    }

    /** The name of a TRIGGERCOUNT id: {@code L1_ITEM_5} (L1 TAV bit 5), {@code HLT_CHAIN_17} (HLT bit 17). */
    static String triggerName(int id) {
        return id < TriggerMask.L1_BITS ? "L1_ITEM_" + id : "HLT_CHAIN_" + (id - TriggerMask.L1_BITS);
    }

    /**
     * Answers a {@code GET} of {@code uri} (a path under {@code /datasets/}).
     *
     * @throws IllegalArgumentException for a malformed dataset name, an unknown figure or parameter (a 400)
     */
    Answer answer(String method, URI uri) {
        if (!"GET".equals(method)) {
            return error(405, "use GET " + uri.getPath());
        }
        if (!isFigure(uri)) {
            return error(404, "not found: " + uri.getPath() + " (a dataset's figures are at /datasets/{name}/"
                    + "triggers|trigger-overlaps|counts|duplicates)");
        }
        String path = uri.getRawPath();
        int slash = path.lastIndexOf('/');
        String figure = path.substring(slash + 1);
        DatasetName name = DatasetName.parse(URLDecoder.decode(path.substring(PREFIX.length(), slash),
                StandardCharsets.UTF_8));
        QueryString q = QueryString.parse(uri.getRawQuery()).only(switch (figure) {
            case "trigger-overlaps", "duplicates" -> List.of("limit");
            case "counts" -> List.of("by");
            default -> List.of();
        });
        try {
            DatasetFigureReader r = reader();
            DatasetFigureReader.DatasetRow d = r.dataset(name).orElse(null);
            if (d == null) {
                return error(404, "dataset " + name + " is not in DATASETS (not loaded, or a wrong name)");
            }
            if (!d.loaded()) {
                return error(404, "dataset " + name + " is " + (d.state().isEmpty() ? "in no state" : d.state())
                        + ", not LOADED: its figures are shown once its load has finished");
            }
            ObjectNode o = LookupJson.MAPPER.createObjectNode();
            o.put("dataset", d.name());
            return new Answer(200, switch (figure) {
                case "triggers" -> triggers(o, r.triggerPairs(d));
                case "trigger-overlaps" -> overlaps(o, r.triggerPairs(d),
                        limit(q, DEFAULT_MATRIX, MAX_MATRIX));
                case "counts" -> counts(o, r.counts(d, by(q)), by(q));
                default -> duplicates(o, d, r.duplicates(d, limit(q, DEFAULT_DUPLICATES, MAX_DUPLICATES)));
            });
        } catch (KuduException e) {
            return error(502, "reading the figures of " + name + " from Kudu failed: " + e.getMessage());
        }
    }

    private synchronized DatasetFigureReader reader() throws KuduException {
        if (reader == null) {
            reader = new DatasetFigureReader(client.get(), tables, System::nanoTime);
        }
        return reader;
    }

    private static boolean by(QueryString q) {
        String by = q.get("by").orElse("run");
        return switch (by) {
            case "run" -> false;
            case "lumiblock" -> true;
            default -> throw new IllegalArgumentException("by must be run or lumiblock, got '" + by + "'");
        };
    }

    private static int limit(QueryString q, int fallback, int max) {
        String v = q.get("limit").orElse(null);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("limit must be a whole number within 1.." + max + ", got '" + v + "'");
    }

    /** The triggers that fired (the diagonal), by count descending then id. */
    private static List<DatasetFigureReader.TriggerPair> fired(List<DatasetFigureReader.TriggerPair> pairs) {
        List<DatasetFigureReader.TriggerPair> fired = new ArrayList<>(pairs.stream()
                .filter(p -> p.trig1() == p.trig2()).toList());
        fired.sort(Comparator.comparingLong(DatasetFigureReader.TriggerPair::count).reversed()
                .thenComparingInt(DatasetFigureReader.TriggerPair::trig1));
        return fired;
    }

    private static ObjectNode triggers(ObjectNode o, List<DatasetFigureReader.TriggerPair> pairs) {
        ArrayNode a = o.putArray("triggers");
        for (DatasetFigureReader.TriggerPair p : fired(pairs)) {
            a.addObject().put("id", p.trig1()).put("name", triggerName(p.trig1()))
                    .put("level", p.trig1() < TriggerMask.L1_BITS ? "L1" : "HLT").put("count", p.count());
        }
        return o;
    }

    private static ObjectNode overlaps(ObjectNode o, List<DatasetFigureReader.TriggerPair> pairs, int limit) {
        List<DatasetFigureReader.TriggerPair> fired = fired(pairs);
        List<DatasetFigureReader.TriggerPair> top = fired.subList(0, Math.min(limit, fired.size()));
        Map<Integer, Integer> index = new HashMap<>();
        ArrayNode names = o.putArray("chains");
        ArrayNode ids = o.putArray("ids");
        for (DatasetFigureReader.TriggerPair p : top) {
            index.put(p.trig1(), index.size());
            names.add(triggerName(p.trig1()));
            ids.add(p.trig1());
        }
        long[][] m = new long[top.size()][top.size()];
        for (DatasetFigureReader.TriggerPair p : pairs) {
            Integer i = index.get(p.trig1());
            Integer j = index.get(p.trig2());
            if (i != null && j != null) {
                m[i][j] = p.count();
                m[j][i] = p.count();
            }
        }
        ArrayNode rows = o.putArray("matrix");
        for (long[] row : m) {
            ArrayNode r = rows.addArray();
            for (long c : row) {
                r.add(c);
            }
        }
        o.put("triggers", fired.size());
        o.put("truncated", fired.size() > top.size());
        return o;
    }

    private static ObjectNode counts(ObjectNode o, TreeMap<Long, Long> counts, boolean byLumiblock) {
        o.put("by", byLumiblock ? "lumiblock" : "run");
        long total = 0;
        ArrayNode a = o.putArray("counts");
        for (Map.Entry<Long, Long> e : counts.entrySet()) {
            ObjectNode c = a.addObject().put("run", e.getKey() >>> 32);
            if (byLumiblock) {
                c.put("lumiblock", e.getKey() & 0xFFFF_FFFFL);
            }
            c.put("events", e.getValue());
            total += e.getValue();
        }
        o.put("events", total);
        return o;
    }

    private static ObjectNode duplicates(ObjectNode o, DatasetFigureReader.DatasetRow d,
                                         DatasetFigureReader.Duplicates dups) {
        o.put("duplicates", dups.total());
        if (d.duplicatedEvents() != null) {
            o.put("duplicatedEvents", d.duplicatedEvents());
        }
        ArrayNode a = o.putArray("rows");
        for (DatasetFigureReader.Duplicate x : dups.rows()) {
            ObjectNode r = a.addObject();
            if (x.run() != null) {
                r.put("run", Integer.toUnsignedLong(x.run()));
            }
            r.put("event", new BigInteger(Long.toUnsignedString(x.event())));
            r.put("file", x.file());
            r.put("firstFile", x.firstFile());
            r.put("insertedAt", x.insertedAt() == null ? null : x.insertedAt().toString());
        }
        o.put("truncated", dups.total() > dups.rows().size());
        return o;
    }

    private static Answer error(int status, String message) {
        return new Answer(status, LookupJson.MAPPER.createObjectNode().put("error", message));
    }
}
