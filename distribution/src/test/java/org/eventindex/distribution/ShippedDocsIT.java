package org.eventindex.distribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The built tarball carries what a site installs besides the daemons (the broker nodes' files, the monitoring files,
 * the Impala DDL and queries, the docs), and every relative link of its Markdown files resolves inside it.
 */
class ShippedDocsIT {
    private static final String VERSION = System.getProperty("ei.project.version", "0.2.0-SNAPSHOT");
    private static final Path TARBALL = Path.of(System.getProperty("ei.distribution.tarball",
            "target/eventindex-" + VERSION + ".tar.gz")).toAbsolutePath();

    @TempDir
    Path unpacked;

    @Test
    void theSiteFilesAreShippedAndEveryRelativeLinkOfTheDocsResolvesInTheTarball() throws Exception {
        assertTrue(Files.isRegularFile(TARBALL), "no tarball " + TARBALL + ": build with mvn -DskipTests package");
        // everything but lib/ (the jars are LibContents' business, and most of the tarball's bytes)
        Process tar = new ProcessBuilder("tar", "xzf", TARBALL.toString(), "-C", unpacked.toString(),
                "--exclude=eventindex-" + VERSION + "/lib/*").redirectErrorStream(true).start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(tar.waitFor(2, TimeUnit.MINUTES), "tar did not finish: " + out);
        assertEquals(0, tar.exitValue(), "tar xzf " + TARBALL + ": " + out);
        Path home = unpacked.resolve("eventindex-" + VERSION);

        for (String file : List.of("README.md", "LICENSE", "docs/operations.md", "docs/install.md", "docs/decisions/README.md",
                "broker-host/activemq/activemq.xml", "broker-host/activemq/activemq.service", "broker-host/activemq/login.config",
                "deploy/monitoring/eventindex-alerts.yml", "deploy/monitoring/eventindex-alerts-test.yml",
                "deploy/monitoring/eventindex-dashboard.json", "deploy/monitoring/activemq-jmx-exporter.yml",
                "deploy/monitoring/README.md", "deploy/impala/create-tables.sql", "deploy/impala/queries.sql",
                "deploy/s3/bucket-policy.json",
                "systemd/eventindex-broker-watchdog.service")) {
            assertTrue(Files.isRegularFile(home.resolve(file)), file + " is not in " + TARBALL);
        }

        DocLinks.Report links = DocLinks.check(home);
        assertTrue(links.links().size() > 100, "relative links found in the shipped docs: " + links.links().size());
        assertEquals(List.of(), links.dangling(), "links of the shipped docs that do not resolve in the tarball");
    }
}
