package org.eventindex.lookup;

import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lookup command line against a real Kudu: the three output formats, not-found and malformed lines; {@code serve}
 * as a process, ready with Kudu and its tables, with its metrics.
 */
class LookupMainIT {
    @TempDir
    static Path dir;
    private static LookupFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private record Run(int status, String out, String err) {
    }

    private static Run run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 4];
        all[0] = "--masters";
        all[1] = fixture.masters();
        all[2] = "--prefix";
        all[3] = CONFIG.prefix();
        System.arraycopy(args, 0, all, 4, args.length);
        int status = LookupMain.run(all, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void textOutputIsTheClientFormatWithNotFoundOnStderr() {
        Run r = run("00327636 000000005\n00327636 000999999\n", "--threads", "2");
        assertEquals(0, r.status(), r.err());
        // own file first, then provenance RAW, ESD, AOD
        assertEquals(List.of("00327636 000000005 " + AOD_1 + " StreamAOD",
                "00327636 000000005 " + RAW_1 + " StreamRAW",
                "00327636 000000005 " + ESD_1 + " StreamESD"), r.out().lines().toList());
        assertEquals("00327636 000999999 NOT_FOUND\n", r.err());
    }

    @Test
    void malformedLineIsNamedAndTheOthersContinue() throws Exception {
        Path input = dir.resolve("events.txt");
        Files.writeString(input, "# picked\n327700 5\n327700 five\n\n327636 250 7\n361106 14\n");
        Run r = run("", "--stream-type", "StreamAOD", input.toString());
        assertEquals(1, r.status(), "malformed lines fail the run");
        assertEquals(List.of("00327700 000000005 " + AOD_3 + " StreamAOD", "00361106 000000014 " + AOD_MC
                + " StreamAOD"), r.out().lines().toList());
        assertTrue(r.err().contains(input + ":3: '327700 five': event 'five' is not a decimal number"), r.err());
        assertTrue(r.err().contains(input + ":5: '327636 250 7': expected 2 fields 'run event', found 3"), r.err());
    }

    @Test
    void explainSaysWhyOnStderrAndInALastCsvColumn() {
        String noSupervisor = " [datasets still collecting at the supervisor are not known: no --supervisor-url]";
        Run r = run("00400000 000000001\n00327700 000000005\n", "--explain");
        assertEquals(0, r.status(), r.err());
        assertEquals("00400000 000000001 NOT_FOUND: no LOADED dataset holds run 400000" + noSupervisor + "\n",
                r.err());
        Run csv = run("327700 5\n327700 51\n", "--csv", "--explain");
        assertEquals(List.of("run,event,status,guid,type,token,dataset,duplicate,explanation",
                "327700,5,FOUND," + AOD_3 + ",StreamAOD," + token(AOD_3, 5) + "," + DS_OTHER_RUN + ",false,",
                "327700,51,NOT_FOUND,,,,,,\"run 327700 is indexed, but event 51 is outside the event range of every"
                        + " LOADED dataset of it: " + DS_OTHER_RUN + " (LOADED: above its last event)" + noSupervisor
                        + "\""), csv.out().lines().toList());
    }

    @Test
    void csvHasAStatusColumn() {
        Run r = run("327636 250\n1 1\n", "--csv");
        assertEquals(0, r.status(), r.err());
        assertEquals(List.of("run,event,status,guid,type,token,dataset,duplicate",
                "327636,250,FOUND," + ESD_2 + ",StreamESD," + token(ESD_2, 250) + "," + DS_ESD + ",false",
                "327636,250,FOUND," + RAW_2 + ",StreamRAW," + token(RAW_2, 250) + "," + DS_ESD + ",false",
                "1,1,NOT_FOUND,,,,,"), r.out().lines().toList());
        assertEquals("", r.err());
    }

    @Test
    void jsonIsOneObjectPerEvent() throws Exception {
        Run r = run("361106 14\n361106 15\n", "--json", "--with-duplicates");
        assertEquals(0, r.status(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(2, lines.size());
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var first = mapper.readTree(lines.get(0));
        assertEquals("FOUND", first.get("status").asText());
        assertEquals(AOD_MC, first.get("matches").get(0).get("guid").asText());
        assertEquals(DS_MC, first.get("matches").get(0).get("dataset").asText());
        assertEquals("NOT_FOUND", mapper.readTree(lines.get(1)).get("status").asText());
    }

    @Test
    void usageErrors() {
        assertEquals(2, run("", "--json", "--csv").status());
        assertEquals(2, run("", "--colour", "red").status());
        assertEquals(2, LookupMain.run(new String[]{"1 1"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
    }

    @Test
    void serveAsAProcessIsReadyWithKuduAndItsTablesAndServesMetrics() throws Exception {
        Process p = ChildJvm.main(LookupMain.class).args("serve", "--masters", fixture.masters(), "--prefix",
                CONFIG.prefix(), "--port", "0", "--ready-check-seconds", "1").builder().redirectErrorStream(true)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            String base = null;
            while (base == null && (line = out.readLine()) != null) {
                if (line.startsWith("listening on ")) {
                    base = line.substring("listening on ".length()).trim();
                }
            }
            assertTrue(base != null, "lookup serve ended without listening");
            // the rest of its output must be read, or the process blocks on a full pipe
            Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "lookup-serve-output");
            drain.setDaemon(true);
            drain.start();
            HttpClient http = HttpClient.newHttpClient();
            String url = base;
            Await.until("lookup serve ready", java.time.Duration.ofMinutes(1), () -> status(http, url + "/ready")
                    == 200);
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(url + "/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(ready.body().contains("\"name\":\"kudu\",\"up\":true"), ready.body());
            assertEquals(200, status(http, url + "/events/00327636/000000005"));
            // the physicists' page and a dataset's figures, read with the service's own Kudu client and prefix
            assertEquals(200, status(http, url + "/page/"));
            assertEquals(200, status(http, url + "/datasets/" + LookupFixture.DS_AOD + "/triggers"));
            String metrics = http.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("eventindex_lookup_requests_total{endpoint=\"events\",outcome=\"ok\"} 1.0"),
                    metrics);
            assertTrue(metrics.contains("eventindex_lookup_requests_total{endpoint=\"figures\",outcome=\"ok\"} 1.0"),
                    metrics);
            assertTrue(metrics.contains("eventindex_lookup_dependency_up{dependency=\"kudu\"} 1.0"), metrics);
            assertTrue(metrics.contains("eventindex_lookup_table_switches_total 0.0"), metrics);
            assertTrue(metrics.contains("eventindex_build_info{daemon=\"lookup\""), metrics);
        } finally {
            p.destroy();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "lookup serve did not stop on SIGTERM");
        }
    }

    private static int status(HttpClient http, String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
