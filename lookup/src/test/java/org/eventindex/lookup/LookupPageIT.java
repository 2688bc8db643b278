package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eventindex.ops.HttpAccess;
import org.eventindex.testing.Await;
import org.eventindex.testing.HeadlessChromium;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The physicists' page and the dataset figures it draws, against a real Kudu loaded with {@link LookupFixture}'s
 * datasets: the figures' JSON checked value by value, then the page in Debian's headless Chromium (Selenium through
 * /usr/bin/chromedriver, as the supervisor's ConsoleBrowserIT): a typed lookup, a pasted list, an uploaded file, the
 * CSV and JSON downloads read back from the download folder, a dataset's trigger counts and overlap matrix drawn with
 * the chain names, its events per run and lumiblock, its duplicates, and a dataset still LOADING. Screenshots go to
 * {@code target/lookup-page-screenshots}; with {@code -Dei.lookup.docs=true} also to {@code docs/lookup-page/}.
 */
class LookupPageIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static EventLookup lookup;
    private static LookupServer server;

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        lookup = new EventLookup(fixture.client(), CONFIG, 4, false);
        server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::explained,
                ServerLimits.defaults(), Map.of(), Duration.ofSeconds(10), Optional::empty,
                HttpAccess.open(), AccessLog.to(LookupServer.ACCESS_LOG),
                new DatasetFigures(fixture::client, CONFIG));
        DatasetQueries queries = DatasetQueries.of(fixture.client(), CONFIG, 2);
        server.serve(new DatasetResources(() -> queries));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (lookup != null) {
            lookup.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url(path))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(String path) throws Exception {
        HttpResponse<String> r = get(path);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    private static String figure(String dataset, String rest) {
        return "/datasets/" + URLEncoder.encode(dataset, StandardCharsets.UTF_8) + "/" + rest;
    }

    @Test
    void figuresAnswerFromTheTables() throws Exception {
        JsonNode t = json(figure(DS_AOD, "triggers"));
        assertEquals(DS_AOD, t.get("dataset").asText());
        assertEquals("[{\"id\":5,\"name\":\"L1_ITEM_5\",\"level\":\"L1\",\"count\":200},"
                + "{\"id\":12,\"name\":\"L1_ITEM_12\",\"level\":\"L1\",\"count\":100},"
                + "{\"id\":40,\"name\":\"L1_ITEM_40\",\"level\":\"L1\",\"count\":66},"
                + "{\"id\":515,\"name\":\"HLT_CHAIN_3\",\"level\":\"HLT\",\"count\":40}]", t.get("triggers").toString());

        JsonNode m = json(figure(DS_AOD, "trigger-overlaps"));
        assertEquals("[\"L1_ITEM_5\",\"L1_ITEM_12\",\"L1_ITEM_40\",\"HLT_CHAIN_3\"]", m.get("chains").toString());
        // multiples of 2 and 3: 33; of 2 and 5: 20; of 3 and 5: 13
        assertEquals("[[200,100,66,40],[100,100,33,20],[66,33,66,13],[40,20,13,40]]", m.get("matrix").toString());
        assertEquals(false, m.get("truncated").asBoolean());
        JsonNode top2 = json(figure(DS_AOD, "trigger-overlaps?limit=2"));
        assertEquals("[[200,100],[100,100]]", top2.get("matrix").toString());
        assertEquals(true, top2.get("truncated").asBoolean());
        assertEquals(4, top2.get("triggers").asInt());

        assertEquals("[{\"run\":327636,\"events\":200}]", json(figure(DS_AOD, "counts")).get("counts").toString());
        JsonNode lb = json(figure(DS_AOD, "counts?by=lumiblock"));
        assertEquals("[{\"run\":327636,\"lumiblock\":1,\"events\":20},{\"run\":327636,\"lumiblock\":2,\"events\":50},"
                + "{\"run\":327636,\"lumiblock\":3,\"events\":80},{\"run\":327636,\"lumiblock\":4,\"events\":50}]",
                lb.get("counts").toString());
        assertEquals(200, lb.get("events").asLong());
        // simulation: MCEVENTS, whose rows carry the conditions run
        assertEquals("[{\"run\":" + MC_CONDITIONS_RUN + ",\"events\":100}]",
                json(figure(DS_MC, "counts")).get("counts").toString());
        assertEquals("[]", json(figure(DS_MC, "triggers")).get("triggers").toString(), "no masks, no triggers");

        JsonNode d = json(figure(DS_AOD, "duplicates?limit=3"));
        assertEquals(10, d.get("duplicates").asInt());
        assertEquals(true, d.get("truncated").asBoolean());
        assertEquals(3, d.get("rows").size());
        for (int i = 0; i < 3; i++) {
            JsonNode row = d.get("rows").get(i);
            assertEquals(50 + i, row.get("event").asLong());
            assertEquals(RUN, row.get("run").asInt());
            assertEquals(AOD_2, row.get("file").asText());
            assertEquals(AOD_1, row.get("firstFile").asText());
            assertTrue(row.get("insertedAt").asText().endsWith("Z"), row.toString());
        }
        assertEquals(10, json(figure(DS_AOD, "duplicates")).get("rows").size());
        assertEquals(0, json(figure(DS_ESD, "duplicates")).get("duplicates").asInt());

        assertError(404, figure(DS_LOADING, "triggers"), "is LOADING, not LOADED");
        assertError(404, figure("data17_13TeV.00399999.physics_Main.merge.AOD.f1_m1", "counts"),
                "data17_13TeV.00399999.physics_Main.merge.AOD.f1_m1 is not in DATASETS");
        assertError(400, figure("not-a-dataset", "counts"), "dot-separated fields");
        assertError(400, figure(DS_AOD, "counts?by=hour"), "by must be run or lumiblock, got 'hour'");
        assertError(400, figure(DS_AOD, "duplicates?limit=0"), "limit must be a whole number within 1..1000");
        assertError(400, figure(DS_AOD, "triggers?limit=3"), "limit");
        assertTrue(DatasetFigures.isFigure(URI.create(figure(DS_AOD, "trigger-overlaps?limit=2"))));
        assertEquals(false, DatasetFigures.isFigure(URI.create(figure(DS_AOD, "pie-chart"))));
        assertEquals(false, DatasetFigures.isFigure(URI.create("/datasets/" + DS_AOD)), "a status, not a figure");
        HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create(url(figure(DS_AOD, "counts"))))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode(), post.body());

        // the page's files, and nothing else from the jar
        HttpResponse<String> root = HTTP.send(HttpRequest.newBuilder(URI.create(url("/"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(302, root.statusCode());
        assertEquals("/page/", root.headers().firstValue("Location").orElse(""));
        assertEquals("text/javascript; charset=utf-8", get("/page/plots.js").headers().firstValue("Content-Type")
                .orElse(""));
        assertEquals(404, get("/page/../LookupServer.class").statusCode());
        assertEquals(404, get("/page/DatasetFigures.class").statusCode());
    }

    private static void assertError(int status, String path, String message) throws Exception {
        HttpResponse<String> r = get(path);
        assertEquals(status, r.statusCode(), path + ": " + r.body());
        String error = JSON.readTree(r.body()).get("error").asText();
        assertTrue(error.contains(message), error);
    }

    @Test
    void pageLooksUpEventsAndDrawsADatasetsFigures() throws Exception {
        Path downloads = Files.createDirectories(dir.resolve("downloads"));
        Path shots = Path.of("target", "lookup-page-screenshots"); // failsafe runs in the module's folder
        try (HeadlessChromium chromium = HeadlessChromium.start(1400, 1300, downloads)) {
            ChromeDriver driver = chromium.driver();
            Browser b = new Browser(chromium);
            driver.get(url("/"));
            b.waitFor("page ready", () -> "true".equals(driver.findElement(By.tagName("body"))
                    .getAttribute("data-ready")));
            assertEquals("EventIndex lookup", driver.getTitle());
            assertEquals(url("/page/"), driver.getCurrentUrl());

            // typed
            driver.findElement(By.id("typed-run")).sendKeys("327636");
            driver.findElement(By.id("typed-event")).sendKeys("5");
            driver.findElement(By.id("typed-go")).click();
            b.lookupDone(1);
            // the own file first, then the provenance, as the command prints them
            assertEquals(List.of("327636 5 FOUND StreamAOD " + AOD_1 + " " + DS_AOD,
                    "327636 5 FOUND StreamRAW " + RAW_1 + " " + DS_AOD,
                    "327636 5 FOUND StreamESD " + ESD_1 + " " + DS_AOD), b.resultRows());

            // pasted: a hit, a miss above the dataset's range, a malformed line, another run
            driver.findElement(By.id("list")).sendKeys("00327636 000000007\n00327636 000005000\nfive six\n"
                    + "00327700 000000010\n");
            driver.findElement(By.id("list-go")).click();
            b.lookupDone(2);
            List<String> rows = b.resultRows();
            assertEquals(5, rows.size(), rows::toString);
            assertEquals("327636 5000 NOT_FOUND", rows.get(3));
            assertEquals("327700 10 FOUND StreamAOD " + AOD_3 + " " + DS_OTHER_RUN, rows.get(4));
            String miss = driver.findElements(By.cssSelector("#results tbody tr")).get(3)
                    .findElement(By.cssSelector("td.why")).getText();
            assertTrue(miss.contains("above its last event"), miss);
            assertTrue(b.text("#input-errors").contains("request:3: 'five six'"), b.text("#input-errors"));
            assertTrue(b.text("#lookup-message").contains("3 event(s), 2 found, 1 not found, 1 line(s) not"
                    + " understood"), b.text("#lookup-message"));
            b.screenshot(shots, "lookup");

            driver.findElement(By.id("download-csv")).click();
            List<String> csv = Files.readAllLines(b.downloaded(downloads, "lookup.csv"));
            assertEquals("run,event,status,guid,type,token,dataset,duplicate,explanation", csv.get(0));
            assertEquals("327636,7,FOUND," + AOD_1 + ",StreamAOD," + token(AOD_1, 7) + "," + DS_AOD + ",false,",
                    csv.get(1));
            assertTrue(csv.get(4).startsWith("327636,5000,NOT_FOUND,,,,,,") && csv.get(4).contains("above its last"
                    + " event"), csv.get(4));
            assertEquals("327700,10,FOUND," + AOD_3 + ",StreamAOD," + token(AOD_3, 10) + "," + DS_OTHER_RUN
                    + ",false,", csv.get(5));
            assertEquals(6, csv.size(), csv::toString);
            driver.findElement(By.id("download-json")).click();
            JsonNode saved = JSON.readTree(b.downloaded(downloads, "lookup.json").toFile());
            assertEquals(3, saved.get("results").size());
            assertEquals("NOT_FOUND", saved.get("results").get(1).get("status").asText());
            assertEquals("OUTSIDE_RANGES", saved.get("results").get(1).get("explanation").get("reasons").get(0)
                    .get("code").asText());
            assertEquals(1, saved.get("errors").size());
            driver.findElement(By.id("copy")).click();
            b.waitFor("copied", () -> b.text("#lookup-message").startsWith("Copied 5 row(s)"));

            // uploaded: a simulated event (the dataset number as run) and a repeated line
            Path upload = dir.resolve("picking.txt");
            Files.writeString(upload, "# a picking list\n" + MC_DATASET_NUMBER + " 14\n00327636 000000200\n"
                    + MC_DATASET_NUMBER + " 14\n");
            driver.findElement(By.id("file")).sendKeys(upload.toAbsolutePath().toString());
            b.lookupDone(3);
            assertEquals(List.of(MC_DATASET_NUMBER + " 14 FOUND StreamAOD " + AOD_MC + " " + DS_MC,
                    "327636 200 FOUND StreamAOD " + AOD_1 + " " + DS_AOD,
                    "327636 200 FOUND StreamESD " + ESD_1 + " " + DS_AOD,
                    "327636 200 FOUND StreamESD " + ESD_2 + " " + DS_ESD,
                    "327636 200 FOUND StreamRAW " + RAW_1 + " " + DS_AOD,
                    "327636 200 FOUND StreamRAW " + RAW_2 + " " + DS_ESD).stream().sorted().toList(),
                    b.resultRows().stream().sorted().toList());
            assertTrue(b.text("#lookup-message").startsWith("picking.txt: 2 event(s), 2 found"),
                    b.text("#lookup-message"));

            // a dataset's figures
            driver.get(url("/page/?dataset=" + URLEncoder.encode(DS_AOD, StandardCharsets.UTF_8)));
            b.datasetDone();
            assertEquals(List.of("L1_ITEM_5=200", "L1_ITEM_12=100", "L1_ITEM_40=66", "HLT_CHAIN_3=40"),
                    b.items("#triggers g.item"));
            assertEquals(List.of("L1_ITEM_5", "L1_ITEM_12", "L1_ITEM_40", "HLT_CHAIN_3"),
                    driver.findElements(By.cssSelector("#overlaps text.row-name")).stream()
                            .map(WebElement::getText).toList());
            assertEquals("33", driver.findElement(By.cssSelector(
                    "#overlaps g.cell[data-row='L1_ITEM_12'][data-col='L1_ITEM_40']")).getAttribute("data-value"));
            assertEquals(4, driver.findElements(By.cssSelector("#overlaps text.col-name")).size());
            assertEquals(List.of("327636=200"), b.items("#runs g.item"));
            assertEquals(List.of("1=20", "2=50", "3=80", "4=50"), b.items("#lumiblocks g.item"));
            List<WebElement> dups = driver.findElements(By.cssSelector("#duplicates tbody tr"));
            assertEquals(10, dups.size());
            assertEquals(RUN + " 50 " + AOD_2 + " " + AOD_1, dups.get(0).getText().substring(0,
                    (RUN + " 50 " + AOD_2 + " " + AOD_1).length()));
            assertTrue(b.text("#duplicates .body").startsWith("10 duplicate row(s) of "), b.text("#duplicates"));
            statusPanel(b, DS_AOD);
            // everything the page loaded came from the service itself (no network beyond it)
            assertEquals(List.of(), driver.executeScript("return performance.getEntriesByType('resource')"
                    + ".map(e => e.name).filter(n => !n.startsWith(location.origin + '/'))"));
            assertTrue(((Number) driver.executeScript("return performance.getEntriesByType('resource').length"))
                    .intValue() >= 9, "the page's three files and six figures");
            driver.executeScript("document.getElementById('dataset-section').scrollIntoView()");
            b.screenshot(shots, "dataset");

            // a dataset still loading has no figures yet, and the page says why
            driver.get(url("/page/?dataset=" + DS_LOADING));
            b.datasetDone();
            assertEquals("unavailable", driver.findElement(By.id("triggers")).getAttribute("data-state"));
            assertTrue(b.text("#triggers").contains("is LOADING, not LOADED"), b.text("#triggers"));
            chromium.collectConsole();
            // the fetches answered 404 on purpose (the LOADING dataset; the status where it is not served)
            chromium.consoleErrors().removeIf(e -> e.contains("status of 404"));
            assertEquals(List.of(), chromium.consoleErrors(), "browser console errors");
        }
    }

    /**
     * The status section: drawn from {@code GET /datasets/{name}} where the service has it (issue 35 item 2), else
     * "not available" from its 404 without breaking the other sections.
     */
    private static void statusPanel(Browser b, String dataset) throws Exception {
        HttpResponse<String> status = get("/datasets/" + URLEncoder.encode(dataset, StandardCharsets.UTF_8));
        String state = b.driver.findElement(By.id("status")).getAttribute("data-state");
        if (status.statusCode() == 200) {
            assertEquals("loaded", state);
            assertTrue(b.text("#status").contains(JSON.readTree(status.body()).get("state").asText()),
                    b.text("#status"));
        } else {
            assertEquals(404, status.statusCode(), status.body());
            assertEquals("unavailable", state);
            assertTrue(b.text("#status").startsWith("Status\nNot available"), b.text("#status"));
        }
    }

    /** The page as the test reads it. */
    private record Browser(HeadlessChromium chromium, ChromeDriver driver) {
        Browser(HeadlessChromium chromium) {
            this(chromium, chromium.driver());
        }

        void waitFor(String what, Supplier<Boolean> condition) {
            new WebDriverWait(driver, WAIT).withMessage(what).ignoring(RuntimeException.class)
                    .until(d -> condition.get());
        }

        String text(String css) {
            return driver.findElement(By.cssSelector(css)).getText();
        }

        /** Waits for the {@code n}-th lookup of the page to be shown. */
        void lookupDone(int n) {
            waitFor("lookup " + n, () -> "done".equals(driver.findElement(By.id("events")).getAttribute("data-state"))
                    && Integer.toString(n).equals(driver.findElement(By.id("events")).getAttribute("data-lookups")));
        }

        void datasetDone() {
            waitFor("dataset drawn", () -> "done".equals(driver.findElement(By.tagName("body"))
                    .getAttribute("data-dataset")));
        }

        /** The result table's rows as "run event status type guid dataset". */
        List<String> resultRows() {
            return driver.findElements(By.cssSelector("#results tbody tr")).stream().map(tr -> {
                // a miss has its explanation across the match columns: left out here
                List<WebElement> c = tr.findElements(By.cssSelector("td:not(.why)"));
                return String.join(" ", c.subList(0, Math.min(6, c.size())).stream().map(WebElement::getText)
                        .toList());
            }).toList();
        }

        /** A plot's items as label=value, in drawing order. */
        List<String> items(String css) {
            return driver.findElements(By.cssSelector(css)).stream()
                    .map(g -> g.getAttribute("data-label") + "=" + g.getAttribute("data-value")).toList();
        }

        Path downloaded(Path folder, String name) throws IOException {
            Path file = folder.resolve(name);
            Await.until(name + " downloaded", WAIT, () -> Files.isRegularFile(file) && file.toFile().length() > 0
                    && !Files.exists(folder.resolve(name + ".crdownload")));
            return file;
        }

        void screenshot(Path shots, String view) throws IOException {
            chromium.screenshot(shots, view, "ei.lookup.docs", Path.of("..", "docs", "lookup-page"));
        }
    }
}
