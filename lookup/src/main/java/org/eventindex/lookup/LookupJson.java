package org.eventindex.lookup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.message.Json;

import java.math.BigInteger;

/**
 * The JSON form of a lookup result, shared by {@code --json} and the HTTP server:
 * {@code {"run":327636,"event":1234,"status":"FOUND"|"NOT_FOUND"|"ERROR","matches":[{"guid","type","token",
 * "dataset","own","duplicate"}],"error":"..."}} ({@code error} only with status ERROR; event numbers unsigned).
 */
public final class LookupJson {
    static final ObjectMapper MAPPER = Json.mapper();

    private LookupJson() {
    }

    /** FOUND, NOT_FOUND or ERROR. */
    public static String status(LookupResult r) {
        return r.failed() ? "ERROR" : r.found() ? "FOUND" : "NOT_FOUND";
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
        return o;
    }
}
