package org.eventindex.lookup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.message.Json;

import java.math.BigInteger;

/**
 * The JSON form of a lookup result, shared by {@code --json} and the HTTP server:
 * {@code {"run":327636,"event":1234,"status":"FOUND"|"NOT_FOUND"|"ERROR","matches":[{"guid","type","token",
 * "dataset","own","duplicate"}],"error":"...","explanation":{...}}} ({@code error} only with status ERROR;
 * {@code explanation} only on an explained miss, see {@link #explanation}; event numbers unsigned).
 */
public final class LookupJson {
    static final ObjectMapper MAPPER = Json.mapper();

    private LookupJson() {
    }

    /** FOUND, NOT_FOUND or ERROR. */
    public static String status(LookupResult r) {
        return r.failed() ? "ERROR" : r.found() ? "FOUND" : "NOT_FOUND";
    }

    /**
     * {@code {"reasons":[{"code","message","datasets":[{"dataset","state","detail","queryable"}]}],"caveat"}}
     * ({@code queryable}: the supervisor's estimate, null when none; {@code caveat} only when something was not known).
     */
    static ObjectNode explanation(MissExplanation e) {
        ObjectNode o = MAPPER.createObjectNode();
        ArrayNode reasons = o.putArray("reasons");
        for (MissExplanation.Reason r : e.reasons()) {
            ObjectNode j = reasons.addObject();
            j.put("code", r.code().name());
            j.put("message", r.message());
            ArrayNode ds = j.putArray("datasets");
            for (MissExplanation.DatasetNote n : r.datasets()) {
                ObjectNode d = ds.addObject();
                d.put("dataset", n.dataset());
                d.put("state", n.state());
                d.put("detail", n.detail());
                d.put("queryable", n.queryable() == null ? null : n.queryable().toString());
            }
        }
        if (e.caveat() != null) {
            o.put("caveat", e.caveat());
        }
        return o;
    }

    public static ObjectNode toJson(LookupResult r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("run", r.key().run());
        o.put("event", new BigInteger(Long.toUnsignedString(r.key().event())));
        o.put("status", status(r));
        ArrayNode matches = o.putArray("matches");
        for (LookupMatch m : r.matches()) {
            ObjectNode j = matches.addObject();
            j.put("guid", m.guid());
            j.put("type", m.type());
            j.put("token", m.token());
            j.put("dataset", m.dataset());
            j.put("own", m.own());
            j.put("duplicate", m.duplicate());
        }
        if (r.failed()) {
            o.put("error", r.error());
        }
        if (r.explanation() != null) {
            o.set("explanation", explanation(r.explanation()));
        }
        return o;
    }
}
