package org.eventindex.distribution;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eventindex.testing.Prerequisites;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the distribution's build makes besides the tarball (decision 0050), read back as a site would: the RPM's file
 * list, configuration files, scriptlets and requirements ({@code rpm -qp ...}), rpmlint on it (with the configuration
 * and reasoned filters of src/rpm/rpmlint.toml), an upgrade that keeps a site's edits of /etc/eventindex (the spec
 * built on a small tree and installed twice into a private root), the SHA-256 file beside each artifact, and the
 * NOTICE and SBOM against lib/. Outside CI, a machine without rpm or rpmlint, or an offline build (no SBOM), skips
 * what needs them; under CI they fail.
 */
final class PackagesIT {
    private static final Path TARBALL = Path.of(System.getProperty("ei.distribution.tarball"));
    private static final Path TARGET = TARBALL.getParent();
    private static final String VERSION = System.getProperty("ei.project.version");
    private static final String TOP = "eventindex-" + VERSION + "/";
    private static final List<String> UNITS = List.of("eventindex-supervisor.service", "eventindex-consumer.service",
            "eventindex-lookup.service", "eventindex-broker-watchdog.service");

    private record Run(int exit, String out) {
    }

    private static Run run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        return new Run(p.exitValue(), out);
    }

    private static List<String> lines(String... command) throws IOException, InterruptedException {
        Run r = run(command);
        assertEquals(0, r.exit(), String.join(" ", command) + ": " + r.out());
        return r.out().lines().toList();
    }

    private static boolean onPath(String command) {
        return Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, command)));
    }

    /** The RPM the build made, or the test skipped (failed under CI) without it or without rpm to read it. */
    private static Path rpm() throws IOException {
        Prerequisites.require(onPath("rpm"), "no rpm on the PATH to read the package (Debian: apt-get install rpm)");
        Path rpm;
        try (Stream<Path> files = Files.list(TARGET)) {
            rpm = files.filter(f -> f.getFileName().toString().matches("eventindex-.*\\.noarch\\.rpm")).findFirst()
                    .orElse(null);
        }
        Prerequisites.require(rpm != null, "no eventindex-*.noarch.rpm in " + TARGET
                + ": the build makes it where rpmbuild is on the PATH (Debian: apt-get install rpm)");
        return rpm;
    }

    /** The tarball's entries below its top folder, e.g. {@code lib/logback-classic-1.5.38.jar}. */
    private static List<String> tarballEntries() throws IOException, InterruptedException {
        return lines("tar", "tzf", TARBALL.toString()).stream().filter(e -> e.startsWith(TOP))
                .map(e -> e.substring(TOP.length())).filter(e -> !e.isEmpty()).toList();
    }

    private static List<String> libJars() throws IOException, InterruptedException {
        return tarballEntries().stream().filter(e -> e.matches("lib/[^/]+\\.jar")).map(e -> e.substring(4)).toList();
    }

    @Test
    void theRpmHoldsTheLauncherEveryJarTheUnitsTheSiteFilesAndTheDocs() throws Exception {
        Set<String> files = new TreeSet<>(lines("rpm", "-qpl", rpm().toString()));
        List<String> expected = new ArrayList<>(List.of("/usr/bin/eventindex", "/opt/eventindex/bin/eventindex",
                "/opt/eventindex/conf", "/opt/eventindex/jvm/consumer.options",
                "/opt/eventindex/docs/operations.md", "/opt/eventindex/README.md",
                "/opt/eventindex/LICENSE", "/opt/eventindex/NOTICE", "/opt/eventindex/sbom",
                "/opt/eventindex/broker-host/activemq/activemq.xml", "/opt/eventindex/deploy/impala/create-tables.sql",
                "/opt/eventindex/deploy/monitoring/README.md", "/usr/lib/sysusers.d/eventindex.conf",
                "/usr/lib/tmpfiles.d/eventindex.conf", "/etc/eventindex/secrets", "/var/lib/eventindex/supervisor",
                "/var/lib/eventindex/consumer/spool", "/var/lib/eventindex/lookup", "/var/log/eventindex"));
        UNITS.forEach(u -> expected.add("/usr/lib/systemd/system/" + u));
        List<String> jars = libJars();
        assertTrue(jars.contains("eventindex-producer.jar") && jars.size() > 50, "lib/ of the tarball: " + jars);
        jars.forEach(j -> expected.add("/opt/eventindex/lib/" + j));
        for (String entry : tarballEntries()) {  // conf/ becomes /etc/eventindex, systemd/ the system's unit folder
            if (entry.startsWith("conf/") && !entry.endsWith("/")) {
                expected.add("/etc/eventindex/" + entry.substring("conf/".length()));
            } else if (entry.startsWith("jvm/") && !entry.endsWith("/")) {  // the defaults stay the package's
                expected.add("/opt/eventindex/" + entry);
            }
        }
        List<String> missing = expected.stream().filter(f -> !files.contains(f)).toList();
        assertEquals(List.of(), missing, "missing from rpm -qpl");
        List<String> misplaced = files.stream().filter(f -> f.startsWith("/opt/eventindex/systemd")
                || f.startsWith("/opt/eventindex/conf/")).toList();
        assertEquals(List.of(), misplaced, "units and configuration have their own places");
    }

    @Test
    void theConfigurationIsEtcEventindexKeptOnUpgradeAndTheSecretsAndStateAreTheUsers() throws Exception {
        String rpm = rpm().toString();
        Set<String> config = new TreeSet<>(lines("rpm", "-qpc", rpm));
        Set<String> expected = tarballEntries().stream().filter(e -> e.startsWith("conf/") && !e.endsWith("/"))
                .map(e -> "/etc/eventindex/" + e.substring("conf/".length())).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(expected.contains("/etc/eventindex/supervisor.properties"), expected.toString());
        assertEquals(expected, config, "rpm -qpc: every file of conf/, nothing else");
        // %config(noreplace): flags c and n; an upgrade keeps a site's edit and writes the new file as .rpmnew
        for (String line : lines("rpm", "-qp", "--qf", "[%{FILEFLAGS:fflags} %{FILENAMES}\n]", rpm)) {
            String[] flagsAndName = line.split(" ", 2);
            if (config.contains(flagsAndName[1])) {
                assertTrue(flagsAndName[0].contains("c") && flagsAndName[0].contains("n"), line);
            }
        }
        Set<String> owners = new TreeSet<>(lines("rpm", "-qp", "--qf",
                "[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]", rpm));
        for (String expectedOwner : List.of("drwx------ eventindex:eventindex /etc/eventindex/secrets",
                "drwx------ eventindex:eventindex /var/lib/eventindex/supervisor",
                "drwx------ eventindex:eventindex /var/lib/eventindex/consumer/spool",
                "drwxr-x--- eventindex:eventindex /var/log/eventindex",
                "-rw-r--r-- root:root /etc/eventindex/supervisor.properties",
                "-rwxr-xr-x root:root /opt/eventindex/bin/eventindex",
                "lrwxrwxrwx root:root /usr/bin/eventindex", "lrwxrwxrwx root:root /opt/eventindex/conf")) {
            assertTrue(owners.contains(expectedOwner), "no " + expectedOwner + " in " + owners);
        }
    }

    @Test
    void theScriptletsMakeTheUserAndTheFoldersAndHandTheUnitsToSystemdWithoutRestartingThem() throws Exception {
        String scripts = String.join("\n", lines("rpm", "-qp", "--scripts", rpm().toString()));
        for (String expected : List.of("preinstall scriptlet", "getent group eventindex >/dev/null || groupadd -r eventindex",
                "useradd -r -g eventindex -d /var/lib/eventindex -s /sbin/nologin",
                "postinstall scriptlet", "systemd-tmpfiles --create /usr/lib/tmpfiles.d/eventindex.conf",
                "systemctl --no-reload preset " + String.join(" ", UNITS),
                "preuninstall scriptlet", "systemctl --no-reload disable --now " + String.join(" ", UNITS),
                "postuninstall scriptlet", "systemctl daemon-reload")) {
            assertTrue(scripts.contains(expected), "rpm -qp --scripts lacks " + expected + ":\n" + scripts);
        }
        // an upgrade leaves the daemons to the operator (the supervisor's journal is copied between stop and start)
        assertFalse(scripts.lines().anyMatch(l -> !l.strip().startsWith("#") && l.contains("restart")), scripts);
    }

    @Test
    void theRpmRequiresAJava17AndTheToolsOfItsScriptlets() throws Exception {
        List<String> requires = lines("rpm", "-qp", "--requires", rpm().toString());
        for (String expected : List.of("java-headless >= 1:17", "bash", "coreutils", "shadow-utils", "systemd")) {
            assertTrue(requires.stream().anyMatch(r -> r.strip().equals(expected)), expected + " in " + requires);
        }
        // and /bin/sh, which rpm adds for the scriptlets
        Set<String> declared = Set.of("java-headless >= 1:17", "bash", "coreutils", "shadow-utils", "systemd", "/bin/sh");
        List<String> others = requires.stream().map(String::strip)
                .filter(r -> !declared.contains(r) && !r.startsWith("rpmlib(")).toList();
        assertEquals(List.of(), others, "requirements the spec does not declare (AutoReqProv is off)");
    }

    @Test
    void rpmlintFindsNoErrorBeyondTheReasonedFilters() throws Exception {
        Path rpm = rpm();
        Prerequisites.require(onPath("rpmlint"), "no rpmlint on the PATH (Debian: apt-get install rpmlint)");
        String config = Path.of("src/rpm/rpmlint.toml").toAbsolutePath().toString();
        // Every check rpmlint has but ZipCheck, which takes 80 % of its time here (17.9 s of 22.3 s) to report jar
        // indexes and manifest class paths, both filtered in the configuration with their reasons.
        List<String> checks = new ArrayList<>();
        boolean inChecks = false;
        for (String line : lines("rpmlint", "-c", config, "-p")) {
            if (line.startsWith("Checks = [")) {
                inChecks = true;
            } else if (inChecks && line.startsWith("]")) {
                break;
            } else if (inChecks) {
                String check = line.strip().replaceAll("[\"',]", "");
                if (!check.equals("ZipCheck")) {
                    checks.add(check);
                }
            }
        }
        assertTrue(checks.contains("TagsCheck") && checks.contains("FilesCheck"), "rpmlint -p: " + checks);
        Run lint = run("rpmlint", "--checks", String.join(",", checks), "-c", config, rpm.toString());
        assertEquals(0, lint.exit(), "rpmlint:\n" + lint.out());
        assertTrue(lint.out().contains(" 0 errors, 0 warnings"), "rpmlint:\n" + lint.out());
    }

    @Test
    void everyArtifactHasItsSha256BesideIt() throws Exception {
        List<Path> artifacts = new ArrayList<>(List.of(TARBALL,
                TARGET.resolve("../../producer/target/eventindex-producer.jar").normalize()));
        if (onPath("rpmbuild")) {
            artifacts.add(rpm());
        }
        for (Path artifact : artifacts) {
            Path sum = artifact.resolveSibling(artifact.getFileName() + ".sha256");
            assertTrue(Files.isRegularFile(sum), "no " + sum);
            assertEquals(sha256(artifact) + "  " + artifact.getFileName() + "\n", Files.readString(sum), sum.toString());
        }
        Run check = run("sh", "-c", "cd '" + TARGET + "' && sha256sum -c '" + TARBALL.getFileName() + ".sha256'");
        assertEquals(0, check.exit(), check.out());
    }

    private static String sha256(Path file) throws IOException, NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * NOTICE names every third-party jar on the distribution's runtime class path (target/runtime.classpath, what lib/
     * ships) by artifact and version, with a licence: it cannot go stale when a dependency changes.
     */
    @Test
    void theNoticeListsEveryThirdPartyJarOfLibWithItsLicence() throws Exception {
        String notice = Files.readString(Path.of("src/dist/NOTICE"));
        List<String> unlisted = new ArrayList<>();
        for (String entry : Files.readString(TARGET.resolve("runtime.classpath")).strip().split(":")) {
            Path jar = Path.of(entry);
            if (jar.getFileName().toString().startsWith("eventindex-")) {
                continue;  // the project's own (Apache-2.0, LICENSE)
            }
            String artifact = jar.getParent().getParent().getFileName().toString();
            String version = jar.getParent().getFileName().toString();
            if (!notice.lines().anyMatch(l -> l.contains(":" + artifact + " " + version + ": ")
                    && !l.endsWith("no licence in its POM"))) {
                unlisted.add(artifact + " " + version);
            }
        }
        assertEquals(List.of(), unlisted, "jars of lib/ without a licence line in src/dist/NOTICE (an online build"
                + " writes the right file as distribution/target/NOTICE.from-sbom)");
        assertTrue(tarballEntries().contains("NOTICE"), "the tarball ships no NOTICE");
    }

    /** The SBOM (online builds) is shipped, is CycloneDX, and has a component for every jar of lib/. */
    @Test
    void theSbomIsShippedAndCoversEveryJarOfLib() throws Exception {
        Path sbom = TARGET.resolve("eventindex-" + VERSION + ".cdx.json");
        Prerequisites.require(Files.isRegularFile(sbom), "no " + sbom + ": the CycloneDX plugin makes it only in an"
                + " online build (mvn without -o)");
        List<String> entries = tarballEntries();
        assertTrue(entries.contains("sbom/eventindex-" + VERSION + ".cdx.json"), "not shipped: " + entries);
        JsonNode bom = new ObjectMapper().readTree(sbom.toFile());
        assertEquals("CycloneDX", bom.path("bomFormat").asText());
        Set<String> components = new TreeSet<>();
        bom.path("components").forEach(c -> components.add(c.path("name").asText() + "-" + c.path("version").asText()));
        List<String> uncovered = libJars().stream().filter(j -> !j.equals("eventindex-producer.jar"))
                .map(j -> j.replaceFirst("\\.jar$", ""))
                .filter(j -> components.stream().noneMatch(j::startsWith)).toList();
        assertEquals(List.of(), uncovered, "jars of lib/ that the SBOM lacks");
    }

    /**
     * The spec's {@code %config(noreplace)} at work: version 1 installed into a private root, a site's edit of
     * supervisor.properties, version 2 (both files changed) installed over it. The edited file stays and the new one is
     * written beside it as .rpmnew; the file the site did not edit is replaced. The JVM options (decision 0056): the
     * site's /etc/eventindex/jvm/consumer.options, edited, stays as it is (no .rpmnew: the package did not change it),
     * version 2's changed default in /opt/eventindex/jvm/consumer.options arrives, and the installed launcher starts
     * the consumer with the new defaults followed by the site's options. The spec is built here on a small tree of the
     * tarball's shape (its bin/, jvm/, conf/ and systemd/, no jars), so that the two builds and installs take seconds.
     */
    @Test
    void anUpgradeKeepsTheSitesEditsOfEtcEventindexAndWritesTheNewFilesAsRpmnew(@TempDir Path temp) throws Exception {
        Prerequisites.require(onPath("rpmbuild") && onPath("rpm"), "no rpmbuild or rpm on the PATH (Debian: apt-get"
                + " install rpm)");
        Prerequisites.require("root".equals(System.getProperty("user.name")), "rpm installs into a private root only"
                + " as root (the package's files belong to root and eventindex)");
        Path v1 = smallRpm(temp, "1.0.0", "", "");
        Path v2 = smallRpm(temp, "1.0.1", "# changed in 1.0.1\n", "-Dnew.default=1.0.1\n");
        Path root = Files.createDirectories(temp.resolve("root"));
        List<String> rpm = List.of("rpm", "--root", root.toString(), "--define", "_dbpath /rpmdb");
        // no scriptlets: they would run inside the private root, which has no shell (their text is checked above)
        List<String> install = concat(rpm, "--nodeps", "--noscripts", "--notriggers");
        lines(concat(install, "-i", v1.toString()).toArray(String[]::new));
        Path edited = root.resolve("etc/eventindex/supervisor.properties");
        Files.writeString(edited, "# the site's edit\n", StandardOpenOption.APPEND);
        Path siteOptions = root.resolve("etc/eventindex/jvm/consumer.options");
        Files.writeString(siteOptions, "-Xmx3g\n", StandardOpenOption.APPEND);
        lines(concat(install, "-U", v2.toString()).toArray(String[]::new));
        assertTrue(Files.readString(edited).contains("# the site's edit"), "the edit is lost");
        assertFalse(Files.readString(edited).contains("# changed in 1.0.1"), Files.readString(edited));
        Path rpmnew = root.resolve("etc/eventindex/supervisor.properties.rpmnew");
        assertTrue(Files.isRegularFile(rpmnew) && Files.readString(rpmnew).contains("# changed in 1.0.1"),
                "no " + rpmnew + " with the new file");
        Path untouched = root.resolve("etc/eventindex/consumer.properties");
        assertTrue(Files.readString(untouched).contains("# changed in 1.0.1"), "not replaced: " + untouched);
        assertFalse(Files.exists(root.resolve("etc/eventindex/consumer.properties.rpmnew")));
        assertEquals(List.of("eventindex-1.0.1-1.el9.noarch"), lines(concat(rpm, "-qa").toArray(String[]::new)));

        assertTrue(Files.readString(siteOptions).endsWith("\n-Xmx3g\n"), "the site's options: "
                + Files.readString(siteOptions));
        assertFalse(Files.exists(root.resolve("etc/eventindex/jvm/consumer.options.rpmnew")));
        // the installed launcher, through /opt/eventindex/conf -> /etc/eventindex as the units run it
        Path launcher = root.resolve("opt/eventindex/bin/eventindex");
        Process p = new ProcessBuilder(launcher.toString(), "--jvm-options", "consumer", "run")
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        List<String> options = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> !l.startsWith("#")).toList();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "--jvm-options: " + options);
        assertTrue(options.indexOf("-Xmx1g") >= 0 && options.indexOf("-Dnew.default=1.0.1") > options.indexOf("-Xmx1g")
                && options.lastIndexOf("-Xmx3g") == options.size() - 1, "the new default, then the site's option: "
                + options);
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    /**
     * The spec built on a tree of the tarball's shape: bin/, jvm/, conf/ and systemd/ of src/dist, placeholders for the
     * rest; {@code confChange} appended to the two daemons' files, {@code defaultsChange} to the consumer's defaults.
     */
    private static Path smallRpm(Path temp, String version, String confChange, String defaultsChange)
            throws Exception {
        Path top = temp.resolve("tree-" + version).resolve("eventindex-" + version);
        Files.createDirectories(top);
        lines("cp", "-r", "src/dist/bin", "src/dist/jvm", "src/dist/conf", "src/dist/systemd", top.toString());
        for (String f : List.of("supervisor.properties", "consumer.properties")) {
            Files.writeString(top.resolve("conf").resolve(f), confChange, StandardOpenOption.APPEND);
        }
        Files.writeString(top.resolve("jvm/consumer.options"), defaultsChange, StandardOpenOption.APPEND);
        for (String placeholder : List.of("lib/placeholder.jar", "spark/placeholder.jar", "docs/operations.md",
                "broker-host/activemq/activemq.xml", "deploy/impala/create-tables.sql", "README.md", "LICENSE",
                "NOTICE")) {
            Files.createDirectories(top.resolve(placeholder).getParent());
            Files.writeString(top.resolve(placeholder), "#!/bin/bash\n");
        }
        Path sources = Files.createDirectories(temp.resolve("rpm-" + version).resolve("SOURCES"));
        lines("tar", "czf", sources.resolve("eventindex-" + version + ".tar.gz").toString(), "-C",
                top.getParent().toString(), top.getFileName().toString());
        for (String f : List.of("eventindex.sysusers", "eventindex.tmpfiles")) {
            Files.copy(Path.of("src/rpm").resolve(f), sources.resolve(f));
        }
        lines("rpmbuild", "-bb", "--target", "noarch", "--define", "_topdir " + sources.getParent(),
                "--define", "_rpmdir " + temp, "--define", "_build_name_fmt %%{NAME}-%%{VERSION}.rpm",
                "--define", "dist .el9", "--define", "ei_version " + version, "--define", "ei_commit test",
                Path.of("src/rpm/eventindex.spec").toAbsolutePath().toString());
        return temp.resolve("eventindex-" + version + ".rpm");
    }
}
