package org.eventindex.supervisor;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest.ManifestFile;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerInfo;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompMessage;
import org.eventindex.testing.Await;
import org.eventindex.testing.HeadlessChromium;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web console in a real browser (Debian's headless Chromium driven by Selenium through /usr/bin/chromedriver)
 * against a supervisor on a real broker: every view loads with its title and no console error, a dataset going DONE
 * shows on the overview and on its page without a reload, a dataset's page shows its objects and counts, every plot
 * draws its data. Screenshots go to {@code target/console-screenshots}; with {@code -Dei.console.docs=true} one of
 * each view is also copied to {@code docs/console/}.
 */
class ConsoleBrowserIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String FAILED = "data17_13TeV.00331001.physics_Main.merge.AOD.f838_m1824";
    private static final String HELD = "data17_13TeV.00331002.physics_Main.merge.AOD.f838_m1824";
    private static final String COLLECTING = "data17_13TeV.00331003.physics_Main.merge.AOD.f838_m1824";
    private static final String LIVE_PAGE = "data17_13TeV.00332001.physics_Main.merge.AOD.f838_m1824";
    private static final String LIVE_OVERVIEW = "data17_13TeV.00332002.physics_Main.merge.AOD.f838_m1824";
    private static final int DONE_AT_START = 6;

    @TempDir
    Path dir;

    private BrokerHarness mq;
    private Supervisor supervisor;
    private HeadlessChromium chromium;
    private ChromeDriver driver;
    private final List<StompMessage> signals = new CopyOnWriteArrayList<>();
    private Path shots;

    @BeforeEach
    void start() throws IOException {
        chromium = HeadlessChromium.start(1400, 1300, null);
        driver = chromium.driver();
        shots = Path.of("target", "console-screenshots"); // failsafe runs in the module's folder
        mq = new BrokerHarness(dir.resolve("broker"));
        Properties p = mq.supervisorProperties(dir.resolve("journal"));
        p.setProperty(SupervisorConfig.SIGNAL_LEASE, "30m");
        p.setProperty(SupervisorConfig.CONSOLE_STUCK_AFTER, "1h");
        supervisor = mq.start(p, Clock.systemUTC());
        mq.consume(Queues.CONSUMER, signals, m -> { });
    }

    @AfterEach
    void stop() {
        if (chromium != null) {
            chromium.close();
        }
        if (supervisor != null) {
            supervisor.stop();
        }
        if (mq != null) {
            mq.close();
        }
    }

    @Test
    void everyViewLoadsUpdatesLiveAndDrawsItsPlots() throws Exception {
        for (int i = 1; i <= DONE_AT_START; i++) {
            runToDone(String.format("data17_13TeV.0033000%d.physics_Main.merge.AOD.f838_m1824", i), i, i % 2 == 0);
        }
        String failedSignal = runToSignalled(FAILED, 7, false);
        mq.control(new ConsumerReport(ConsumerReport.TYPE, failedSignal, FAILED, "consumer-1", ConsumerReport.FAILED,
                null, 0, 0, 0, 0, 0, 400, "object s3://rgw.example:7480/eventindex/x is truncated",
                System.currentTimeMillis(), true));
        await(FAILED, CollectionState.FAILED_CONSUMER);
        mq.control(Fixtures.manifest(HELD, file("H1", -1), file("H2", -1)));
        produce(HELD, "held-a", 1_000, guid("H1", 0, 100));
        produce(HELD, "held-b", 1_000, guid("H1", 0, 97), guid("H2", 1, 50));
        Await.until("objects of " + HELD, BrokerHarness.TIMEOUT,
                () -> supervisor.dataset(HELD).map(DatasetView::objectsReported).orElse(0) == 2);
        await(HELD, CollectionState.HELD);
        produce(COLLECTING, "coll-a", 4_000, guid("C1", 0, 10));
        Await.until("collecting", BrokerHarness.TIMEOUT, () -> supervisor.dataset(COLLECTING).isPresent());
        heartbeat(ConsumerHeartbeat.idle("consumer-2", "1.0", 30_000, System.currentTimeMillis()));

        // overview
        open("/", "Overview");
        assertEquals(String.valueOf(DONE_AT_START), text("a[data-state='DONE'] .n"));
        assertEquals("active", text("#role"), "the header says the role (no standby here)");
        assertEquals("1", text("a[data-state='FAILED_CONSUMER'] .n"));
        String attention = text("#attention");
        assertTrue(attention.contains(FAILED) && attention.contains(HELD) && attention.contains("truncated"),
                attention);
        // the scheduled verify is off here: the overview says which key turns it on
        assertTrue(text("#verify").contains("supervisor.verify.interval"), text("#verify"));
        assertEquals("/view/datasets/" + FAILED, new java.net.URI(driver.findElement(By.cssSelector(
                "#attention a[href$='" + FAILED + "']")).getAttribute("href")).getPath());
        screenshot("overview");

        // a dataset going DONE appears on its page without a reload
        String pageSignal = runToSignalled(LIVE_PAGE, 8, true);
        heartbeat(ConsumerHeartbeat.busy("consumer-1", LIVE_PAGE, pageSignal, 2, 1, 0,
                System.currentTimeMillis() - 2_000, "1.0", 30_000, System.currentTimeMillis()));
        open("/view/datasets/" + LIVE_PAGE, "Dataset " + LIVE_PAGE);
        assertEquals("SIGNALLED", text("#dataset-state"));
        markPage();
        report(pageSignal, LIVE_PAGE, 8);
        waitFor("the page shows DONE", () -> text("#dataset-state").equals("DONE"));
        waitFor("the timeline shows DONE", () -> driver.findElements(By.cssSelector("#timeline li.reached")).size()
                == 8);
        assertPageNotReloaded();
        // its objects and counts
        assertEquals(2, driver.findElements(By.cssSelector("#objects tr[data-fate='selected']")).size());
        assertEquals(1, driver.findElements(By.cssSelector("#objects tr[data-fate='duplicate']")).size());
        String body = text("#dataset-body");
        assertTrue(body.contains("Objects reported\n3")
                && body.contains("Kudu rows loaded\n" + String.format("%,d", events(8)))
                && body.contains("/eventindex/datasets/") && body.contains("consumer-1"), body);
        assertTrue(text("#commands").contains("eventindex supervisor resignal --brokers ")
                && text("#commands").contains("--dataset " + LIVE_PAGE), text("#commands"));
        // an operator's request about it: the page lists it live with who asked (here no broker login: the OS user
        // the command line claims)
        assertEquals("No operator request named this dataset.", text("#requests"));
        mq.sender.send(Queues.SUPERVISOR_CONTROL, Json.write(InvalidateCommand.of(LIVE_PAGE, Fixtures.url("9.9"),
                "wrong attempt", "operator")), Map.of("reply-to", "/temp-queue/eventindex-answers", "correlation-id",
                "req-console", "eventindex-os-user", "alice"));
        waitFor("the page lists the request and who asked", () -> text("#requests").contains("OS user alice (claimed)")
                && text("#requests").contains("UNKNOWN_OBJECT"));
        assertPageNotReloaded();
        screenshot("dataset");

        // ... and on the overview
        open("/", "Overview");
        markPage();
        report(runToSignalled(LIVE_OVERVIEW, 9, false), LIVE_OVERVIEW, 9);
        waitFor("the overview lists the new DONE dataset", () -> text("#recent-done").contains(LIVE_OVERVIEW));
        waitFor("the DONE count follows", () -> text("a[data-state='DONE'] .n")
                .equals(String.valueOf(DONE_AT_START + 2)));
        assertPageNotReloaded();

        // datasets: search, filter, sort, page
        open("/view/datasets", "Datasets");
        int all = DONE_AT_START + 5;
        assertEquals(all, rows());
        assertTrue(text("#page-status").endsWith("of " + all), text("#page-status"));
        screenshot("datasets");
        driver.findElement(By.id("search")).sendKeys("00331");
        waitFor("search by name", () -> rows() == 3);
        new Select(driver.findElement(By.id("state-filter"))).selectByValue("FAILED_CONSUMER");
        waitFor("filter by state", () -> rows() == 1 && text("#datasets tbody").contains(FAILED));
        driver.findElement(By.id("search")).clear();
        new Select(driver.findElement(By.id("state-filter"))).selectByValue("DONE");
        new Select(driver.findElement(By.id("page-size"))).selectByValue("25");
        waitFor("DONE only", () -> rows() == DONE_AT_START + 2);
        driver.findElement(By.cssSelector("button[data-sort='events']")).click();
        waitFor("sorted by events", () -> count("th[aria-sort='ascending'] button[data-sort='events']") == 1);
        driver.findElement(By.cssSelector("button[data-sort='events']")).click();
        waitFor("sorted by events, largest first",
                () -> count("th[aria-sort='descending'] button[data-sort='events']") == 1);
        List<WebElement> first = driver.findElements(By.cssSelector("#datasets tbody tr"));
        assertEquals(LIVE_OVERVIEW, first.get(0).getAttribute("data-dataset"), "most events first");
        assertEquals(0, driver.findElements(By.cssSelector("#datasets tbody tr[data-dataset='" + FAILED + "']"))
                .size());

        // consumers
        open("/view/consumers", "Consumers");
        String consumers = text("#consumers");
        assertTrue(consumers.contains("consumer-1") && consumers.contains("consumer-2") && consumers.contains("idle"),
                consumers);
        screenshot("consumers");

        // keys: / goes to the dataset search, 4 to the plots
        driver.findElement(By.tagName("body")).sendKeys("/");
        waitFor("/ opens the dataset search", () -> driver.getTitle().startsWith("Datasets"));
        waitFor("search focused", () -> "search".equals(driver.switchTo().activeElement().getAttribute("id")));
        ((JavascriptExecutor) driver).executeScript("document.activeElement.blur();");
        driver.findElement(By.tagName("body")).sendKeys("4");
        waitFor("4 opens the plots", () -> driver.getTitle().startsWith("Plots"));

        // plots
        open("/view/plots", "Plots");
        int done = DONE_AT_START + 2;
        waitFor("every plot drawn", () -> driver.findElements(By.cssSelector("figure.plot svg.chart")).size() == 5);
        String points = driver.findElement(By.cssSelector("[data-plot='events-per-second'] path.series.s0"))
                .getAttribute("data-points");
        assertTrue(Integer.parseInt(points) >= 1, "events per second: " + points + " minutes");
        assertTrue(count("[data-plot='datasets-per-hour'] rect.bar") >= 1, "datasets per hour");
        assertEquals(done, count("[data-plot='consumer-time'] circle.point"), "one point per dataset DONE");
        assertTrue(count("[data-plot='object-sizes'] rect.bar") >= 3, "object sizes from 1 kB to 64 kB");
        assertEquals(done, count("[data-plot='duplicate-fraction'] rect.bar"), "one bar per dataset DONE");
        assertEquals(0, count("figure.plot text.empty"), "no plot without data");
        screenshot("plots");

        assertEquals(List.of(), chromium.consoleErrors(), "browser console errors");
    }

    /* ---------- the browser ---------- */

    private void open(String path, String title) {
        collectConsole();
        driver.get("http://127.0.0.1:" + supervisor.httpPort() + path);
        waitFor("view drawn", () -> {
            String updates = driver.findElement(By.id("main")).getAttribute("data-updates");
            return updates != null && Integer.parseInt(updates) >= 1;
        });
        assertEquals(title + " \u2014 EventIndex supervisor", driver.getTitle());
        assertTrue(driver.findElement(By.id("load-error")).getAttribute("hidden") != null,
                () -> text("#load-error"));
        waitFor("live stream connected", () -> text("#live").equals("live"));
        collectConsole();
    }

    private void markPage() {
        ((JavascriptExecutor) driver).executeScript("window.__noReload = true;");
    }

    private void assertPageNotReloaded() {
        assertEquals(Boolean.TRUE, ((JavascriptExecutor) driver).executeScript("return window.__noReload === true;"),
                "updated in place, not reloaded");
    }

    private void collectConsole() {
        chromium.collectConsole();
    }

    private String text(String css) {
        return driver.findElement(By.cssSelector(css)).getText();
    }

    private int count(String css) {
        return driver.findElements(By.cssSelector(css)).size();
    }

    private int rows() {
        return count("#datasets tbody tr");
    }

    private void waitFor(String what, java.util.function.Supplier<Boolean> condition) {
        new WebDriverWait(driver, WAIT).withMessage(what).ignoring(RuntimeException.class)
                .until(d -> condition.get());
    }

    private void screenshot(String view) throws IOException {
        chromium.screenshot(shots, view, "ei.console.docs", Path.of("..", "docs", "console"));
    }

    /* ---------- the pipeline around the supervisor ---------- */

    private static long events(int i) {
        return 1_000L * i;
    }

    /** Objects of 1 kB to 64 kB; {@code retry} adds a duplicate object of the first file. */
    private String runToSignalled(String dataset, int i, boolean retry) throws IOException {
        List<ManifestFile> files = new ArrayList<>();
        for (int f = 0; f < 2; f++) {
            String g = "G" + i + "x" + f;
            files.add(file(g, events(i) / 2));
            produce(dataset, "j" + i + "f" + f, 1_000L << ((i + f) % 7), guid(g, f, events(i) / 2));
        }
        if (retry) {
            produce(dataset, "j" + i + "retry", 900, guid("G" + i + "x0", 0, events(i) / 2));
        }
        int objects = retry ? 3 : 2;
        // the manifest goes by the control queue, another worker: it must not overtake the objects
        Await.until("objects of " + dataset, BrokerHarness.TIMEOUT,
                () -> supervisor.dataset(dataset).map(DatasetView::objectsReported).orElse(0) == objects);
        mq.control(Fixtures.manifest(dataset, files.toArray(new ManifestFile[0])));
        await(dataset, CollectionState.SIGNALLED);
        Await.until("signal of " + dataset, BrokerHarness.TIMEOUT, () -> signalOf(dataset) != null);
        return signalOf(dataset).signalId();
    }

    private void runToDone(String dataset, int i, boolean retry) throws IOException {
        report(runToSignalled(dataset, i, retry), dataset, i);
        await(dataset, CollectionState.DONE);
    }

    private void report(String signalId, String dataset, int i) throws IOException {
        mq.control(new ConsumerReport(ConsumerReport.TYPE, signalId, dataset, "consumer-1", ConsumerReport.DONE,
                "/eventindex/datasets/" + dataset + "/" + dataset + ".parquet", events(i), events(i), 0, 2,
                3_000L * i, 700L * i + 300, null, System.currentTimeMillis(), false));
    }

    private ConsumerSignal signalOf(String dataset) {
        return signals.stream().map(BrokerHarness::signal).filter(s -> s.dataset().equals(dataset)).findFirst()
                .orElse(null);
    }

    private void await(String dataset, CollectionState state) {
        Await.until(dataset + " " + state, BrokerHarness.TIMEOUT,
                () -> supervisor.dataset(dataset).map(DatasetView::state).orElse(null) == state);
    }

    private void produce(String dataset, String job, long size, GuidInfo... guids) throws IOException {
        ProducerInfo i = Fixtures.info(dataset, url(job), guids);
        ProducerInfo sized = new ProducerInfo(size, size * 5, i.version(), i.taskID(), i.jobID(), i.startProcTime(),
                i.endProcTime(), i.inputDsName(), i.nevents(), i.nuevents(), i.nfiles(), i.uuid(), i.timestamp(),
                i.url(), i.guids());
        mq.send(Queues.SUPERVISOR, Fixtures.producerMessage("m-" + job, sized));
    }

    private void heartbeat(ConsumerHeartbeat h) throws IOException {
        mq.send(Queues.SUPERVISOR_HEARTBEAT, Json.write(h));
    }
}
