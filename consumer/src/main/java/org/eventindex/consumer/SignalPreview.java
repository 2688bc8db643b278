package org.eventindex.consumer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.eventindex.message.Json;
import org.eventindex.names.Printable;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Reads what it can from the first bytes of a JSON object whose end was cut off (an oversize signal). */
final class SignalPreview {
    private static final int MAX_VALUE_CHARS = 300;

    private SignalPreview() {
    }

    /**
     * The string values of the wanted top-level fields that appear, complete, in {@code preview}; fields after the
     * cut (or nested in other values) are simply absent. Never throws on bad or truncated JSON.
     */
    static Map<String, String> topLevelStrings(byte[] preview, String... wanted) {
        Set<String> names = Set.of(wanted);
        Map<String, String> found = new HashMap<>();
        try (JsonParser p = Json.mapper().getFactory().createParser(preview)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return found;
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING && names.contains(name)) {
                    found.putIfAbsent(name, Printable.of(p.getText(), MAX_VALUE_CHARS));
                } else {
                    p.skipChildren();
                }
                if (found.size() == names.size()) {
                    break;
                }
            }
        } catch (IOException e) {
            // the cut: keep what was read before it
        }
        return found;
    }
}
