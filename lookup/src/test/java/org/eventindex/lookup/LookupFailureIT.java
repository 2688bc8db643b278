package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kudu.client.KuduClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;

import static org.eventindex.lookup.LookupFixture.CONFIG;
import static org.eventindex.lookup.LookupFixture.RUN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** With its tablet server down, a lookup reports a failure naming the event (CLI result, HTTP 502), never NOT_FOUND. */
class LookupFailureIT {
    @TempDir
    Path dir;

    @Test
    void kuduDownIsAnErrorNotAnAbsence() throws Exception {
        try (LookupFixture fixture = LookupFixture.start(dir);
             KuduClient client = new KuduClient.KuduClientBuilder(fixture.masters())
                     .defaultOperationTimeoutMs(2000).defaultAdminOperationTimeoutMs(2000).build();
             EventLookup lookup = new EventLookup(client, CONFIG, 2, false)) {
            assertTrue(lookup.lookup(new EventKey(RUN, 5), LookupFilter.all()).found(), "up: found");
            fixture.killTabletServer();

            List<LookupResult> rs = lookup.lookup(List.of(new EventKey(RUN, 5), new EventKey(RUN, 6)),
                    LookupFilter.all());
            for (LookupResult r : rs) {
                assertTrue(r.failed(), r.toString());
                assertFalse(r.found());
            }
            assertTrue(rs.get(0).error().contains("327636"), rs.get(0).error());

            try (LookupServer server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::lookup,
                    ServerLimits.of(2, 10))) {
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/events/327636/5")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(502, r.statusCode(), r.body());
                JsonNode j = new ObjectMapper().readTree(r.body());
                assertEquals("ERROR", j.get("status").asText());
                assertFalse(j.get("error").asText().isBlank());
            }
        }
    }
}
