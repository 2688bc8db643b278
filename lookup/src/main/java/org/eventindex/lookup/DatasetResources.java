package org.eventindex.lookup;

import com.sun.net.httpserver.HttpExchange;
import org.apache.kudu.client.KuduException;
import org.eventindex.ops.QueryString;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The HTTP side of {@link DatasetQueries} (docs/lookup.md, "Where is my dataset, and what datasets share"):
 * <ul>
 *   <li>{@code GET /datasets?pattern=GLOB}: {@code {"datasets": [STATUS...], "caveat": ...}};</li>
 *   <li>{@code GET /datasets/{name}}: STATUS, 404 for a dataset neither Kudu nor the supervisor knows;</li>
 *   <li>{@code GET /overlap?datasets=A,B[,...]} or {@code ?pattern=GLOB}, {@code limit=N}: the overlap, 404 naming a
 *       dataset that is not queryable.</li>
 * </ul>
 * 400 for a bad parameter, 502 when Kudu failed; every error {@code {"error": ...}}.
 */
public final class DatasetResources {
    private final Supplier<DatasetQueries> queries;

    /** @param queries the open queries (called per request, once the service has Kudu) */
    DatasetResources(Supplier<DatasetQueries> queries) {
        this.queries = requireNonNull(queries, "queries is null");
    }

    /** {@code /datasets} and below. */
    void datasets(HttpExchange ex) throws IOException {
        if (!"GET".equals(ex.getRequestMethod())) {
            LookupServer.send(ex, 405, Map.of("error", "use GET /datasets?pattern=GLOB or GET /datasets/{name}"));
            return;
        }
        String path = ex.getRequestURI().getRawPath();
        String rest = path.length() <= "/datasets".length() ? "" : path.substring("/datasets".length());
        try {
            if (!rest.isEmpty() && (!rest.startsWith("/") || rest.indexOf('/', 1) >= 0)) {
                // /datasetsX, or /datasets/A/B: no dataset name has a '/' (a figure's path is DatasetFigures')
                LookupServer.send(ex, 404, Map.of("error", "not found: " + path));
            } else if (rest.isEmpty() || rest.equals("/")) {
                QueryString q = QueryString.parse(ex.getRequestURI().getRawQuery()).only(List.of("pattern"));
                DatasetStatuses.Answer a = queries.get().statuses(q.get("pattern").orElse(null));
                Map<String, Object> body = new java.util.LinkedHashMap<>();
                body.put("datasets", a.datasets());
                body.put("caveat", a.caveat());
                LookupServer.send(ex, 200, body);
            } else {
                QueryString.parse(ex.getRequestURI().getRawQuery()).only(List.of());
                String name = URLDecoder.decode(rest.substring(1), StandardCharsets.UTF_8);
                LookupServer.send(ex, 200, queries.get().status(name));
            }
        } catch (DatasetQueries.NotQueryable e) {
            LookupServer.send(ex, 404, Map.of("error", e.getMessage()));
        } catch (KuduException e) {
            LookupServer.send(ex, 502, Map.of("error", "reading DATASETS failed: " + e.getMessage()));
        }
    }

    /** {@code /overlap}. */
    void overlap(HttpExchange ex) throws IOException {
        if (!"GET".equals(ex.getRequestMethod())) {
            LookupServer.send(ex, 405, Map.of("error", "use GET /overlap?datasets=A,B or GET /overlap?pattern=GLOB"));
            return;
        }
        QueryString q = QueryString.parse(ex.getRequestURI().getRawQuery())
                .only(List.of("datasets", "pattern", "limit"));
        List<String> names = new ArrayList<>();
        q.all("datasets").forEach(v -> {
            for (String n : v.split(",")) {
                if (!n.isBlank()) {
                    names.add(n.strip());
                }
            }
        });
        int limit;
        try {
            limit = q.get("limit").map(Integer::parseInt).orElse(DatasetQueries.DEFAULT_LIMIT);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("limit '" + q.get("limit").orElse("") + "' is not a number", e);
        }
        try {
            LookupServer.send(ex, 200, queries.get().overlap(names, q.get("pattern").orElse(null), limit));
        } catch (DatasetQueries.NotQueryable e) {
            LookupServer.send(ex, 404, Map.of("error", e.getMessage()));
        } catch (IOException e) {
            LookupServer.send(ex, 502, Map.of("error", "reading the datasets' events failed: " + e.getMessage()));
        }
    }
}
