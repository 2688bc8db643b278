package org.eventindex.testing;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import static java.util.Objects.requireNonNull;

/**
 * Debian's headless Chromium driven by Selenium through {@code /usr/bin/chromedriver}, for the browser tests (the
 * supervisor's console, the lookup service's page): started as root with {@code --no-sandbox}, the browser's console
 * kept, screenshots written and, when the docs property is set, copied into the docs. A module using it declares
 * {@code selenium-chrome-driver} (and {@code selenium-support} for its waits) in test scope.
 */
public final class HeadlessChromium implements AutoCloseable {
    public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final ChromeDriver driver;
    private final List<String> consoleErrors = new ArrayList<>();

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /**
     * Starts a browser with a window of {@code width} x {@code height}; fails under CI, skips elsewhere, when Chromium
     * or its driver is not installed ({@link Prerequisites}).
     *
     * @param downloads where downloads go without asking; null: the browser's default
     */
    public static HeadlessChromium start(int width, int height, Path downloads) {
        Prerequisites.require(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium and its driver (" + CHROMIUM + ", " + CHROMEDRIVER + "): apt-get install"
                        + " chromium chromium-driver");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=" + width + "," + height, "--hide-scrollbars");
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        if (downloads != null) {
            Map<String, Object> prefs = new HashMap<>();
            prefs.put("download.default_directory", downloads.toAbsolutePath().toString());
            prefs.put("download.prompt_for_download", false);
            options.setExperimentalOption("prefs", prefs);
        }
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        return new HeadlessChromium(new ChromeDriver(service, options));
    }

    public ChromeDriver driver() {
        return driver;
    }

    /** Moves the browser's console messages of level SEVERE so far into {@link #consoleErrors()}, with the page. */
    public void collectConsole() {
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue()) {
                consoleErrors.add(driver.getCurrentUrl() + ": " + e.getMessage());
            }
        }
    }

    /** The console errors collected so far (a mutable list: a test may drop those it caused on purpose). */
    public List<String> consoleErrors() {
        return consoleErrors;
    }

    /**
     * Writes a screenshot of the window to {@code folder/name.png}; when the system property {@code docsProperty} is
     * {@code true}, also copies it to {@code docs/name.png} (a docs folder, made if missing).
     */
    public Path screenshot(Path folder, String name, String docsProperty, Path docs) throws IOException {
        requireNonNull(docs, "docs is null");
        collectConsole();
        Files.createDirectories(folder);
        Path png = folder.resolve(name + ".png");
        Files.write(png, driver.getScreenshotAs(OutputType.BYTES));
        if (Boolean.getBoolean(docsProperty)) {
            Files.createDirectories(docs);
            Files.copy(png, docs.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        }
        return png;
    }

    @Override
    public void close() {
        driver.quit();
    }
}
