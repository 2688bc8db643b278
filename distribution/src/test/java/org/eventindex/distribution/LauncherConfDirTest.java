package org.eventindex.distribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distribution's launcher (src/dist/bin/eventindex) refuses a configuration folder it cannot use, missing or
 * without logback.xml, and an installation without its JVM option defaults (jvm/&lt;command&gt;.options beside bin/),
 * with exit 2 and a message naming the folder or file, instead of running the JVM without its options and with
 * Logback's DEBUG default. The site's jvm/&lt;command&gt;.options follow the defaults (decision 0056), also across an
 * upgrade of a tarball installation: the new version's defaults arrive, the site's options stay and still win. The
 * script runs from a copy in an empty folder; a bogus JAVA_HOME shows where a usable folder gets to (the Java check
 * after it), so no JVM is started. Without JAVA_HOME the launcher finds a Java 17+ by itself (the same units on EL9
 * and Debian): stand-in Java homes show which.
 */
final class LauncherConfDirTest {
    private static final Path SCRIPT = Path.of("src/dist/bin/eventindex");
    private static final Path CONF = Path.of("src/dist/conf");
    private static final Path DEFAULTS = Path.of("src/dist/jvm");

    @TempDir
    Path home;

    private record Result(int exit, String output) {
    }

    private Result launch(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return launch(install(home), env, args);
    }

    /** The launcher and the JVM option defaults of the distribution in {@code at} (once), as the tarball has them. */
    private static Path install(Path at) throws IOException {
        Path bin = Files.createDirectories(at.resolve("bin")).resolve("eventindex");
        if (!Files.exists(bin)) {
            Files.copy(SCRIPT, bin);
            Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
            copyFolder(DEFAULTS, at.resolve("jvm"));
        }
        return bin;
    }

    private static void copyFolder(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    private Result launch(Path bin, Map<String, String> env, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(new java.util.ArrayList<>(List.of(bin.toString())));
        pb.command().addAll(List.of(args));
        pb.environment().remove("EVENTINDEX_CONF_DIR");
        pb.environment().put("JAVA_HOME", home.resolve("no-java").toString());
        env.forEach((name, value) -> {  // an empty value unsets the variable
            if (value.isEmpty()) {
                pb.environment().remove(name);
            } else {
                pb.environment().put(name, value);
            }
        });
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "launcher did not end");
        return new Result(p.exitValue(), out.strip());
    }

    private static Path copyOfConf(Path to) throws IOException {
        copyFolder(CONF.resolve("jvm"), to.resolve("jvm"));
        Files.copy(CONF.resolve("logback.xml"), to.resolve("logback.xml"));
        return to;
    }

    @Test
    void aWrongOrMissingConfigurationFolderStopsTheLauncher() throws Exception {
        Path bogus = home.resolve("no-such-conf");
        Result wrong = launch(Map.of("EVENTINDEX_CONF_DIR", bogus.toString()), "consumer", "run");
        assertEquals(2, wrong.exit(), wrong.output());
        assertEquals("eventindex: EVENTINDEX_CONF_DIR is " + bogus + ", which is not a folder: set"
                + " EVENTINDEX_CONF_DIR to the folder holding logback.xml and jvm/ (the distribution's conf/)",
                wrong.output());

        Result noDefault = launch(Map.of(), "supervisor", "run");
        assertEquals(2, noDefault.exit(), noDefault.output());
        assertTrue(noDefault.output().startsWith("eventindex: the default configuration folder " + home.resolve("conf")
                + " (EVENTINDEX_CONF_DIR is not set), which is not a folder"), noDefault.output());
    }

    @Test
    void aFolderWithoutTheLoggingConfigurationOrAnInstallationWithoutItsDefaultsStopsTheLauncher() throws Exception {
        Path site = copyOfConf(home.resolve("site"));
        Map<String, String> env = Map.of("EVENTINDEX_CONF_DIR", site.toString());
        // the site's options are optional (a command added by an upgrade runs with an older site's folder)
        Files.delete(site.resolve("jvm/lookup.options"));
        Result noSiteOptions = launch(env, "lookup", "serve");
        assertEquals(2, noSiteOptions.exit(), noSiteOptions.output());
        assertTrue(noSiteOptions.output().startsWith("eventindex: JAVA_HOME is "), noSiteOptions.output());
        // the distribution's defaults are not: without them the heap would have no bound
        Files.delete(home.resolve("jvm/lookup.options"));
        Result noDefaults = launch(env, "lookup", "serve");
        assertEquals(2, noDefaults.exit(), noDefaults.output());
        Path real = home.toRealPath();  // the launcher names its home without symlinks
        assertEquals("eventindex: the distribution's default JVM options " + real.resolve("jvm/lookup.options")
                + " are missing: the installation in " + real + " is incomplete; unpack the tarball again (or"
                + " reinstall the package)", noDefaults.output());

        Files.delete(site.resolve("logback.xml"));
        Result noLogging = launch(env, "supervisor", "run");
        assertEquals(2, noLogging.exit(), noLogging.output());
        assertTrue(noLogging.output().startsWith("eventindex: EVENTINDEX_CONF_DIR is " + site
                + ", which has no readable logback.xml"), noLogging.output());

        // the producer logs without Logback: its options file is enough, and the launcher goes on to Java
        Result producer = launch(env, "producer", "--help");
        assertEquals(2, producer.exit(), producer.output());
        assertTrue(producer.output().startsWith("eventindex: JAVA_HOME is " + home.resolve("no-java")),
                producer.output());
    }

    /** The GC log and heap dump settings of a daemon are checked before the JVM starts, naming the variable. */
    @Test
    void aBadGcLogOrHeapDumpSettingStopsTheLauncher() throws Exception {
        copyOfConf(home.resolve("conf"));
        String java = System.getProperty("java.home");
        Path folder = home.resolve("jvm logs");
        Result dumps = launch(Map.of("JAVA_HOME", java, "EVENTINDEX_JVM_LOG_DIR", folder.toString(),
                "EVENTINDEX_HEAP_DUMPS", "many"), "consumer", "run");
        assertEquals(2, dumps.exit(), dumps.output());
        assertEquals("eventindex: EVENTINDEX_HEAP_DUMPS is 'many'; it must be a number of dumps (0: no heap dump)",
                dumps.output());
        Result size = launch(Map.of("JAVA_HOME", java, "EVENTINDEX_JVM_LOG_DIR", folder.toString(),
                "EVENTINDEX_GC_LOG_FILE_SIZE", "20 MB"), "supervisor", "run");
        assertEquals(2, size.exit(), size.output());
        assertTrue(size.output().startsWith("eventindex: EVENTINDEX_GC_LOG_FILE_SIZE is '20 MB'"), size.output());
        Path file = Files.writeString(home.resolve("a file"), "not a folder");
        Result notFolder = launch(Map.of("JAVA_HOME", java, "EVENTINDEX_JVM_LOG_DIR", file.toString()), "lookup",
                "serve");
        assertEquals(2, notFolder.exit(), notFolder.output());
        assertTrue(notFolder.output().startsWith("eventindex: the JVM log folder " + file + " (EVENTINDEX_JVM_LOG_DIR,"
                + " else EVENTINDEX_LOG_DIR/lookup) cannot be created or written"), notFolder.output());
    }

    @Test
    void aCompleteFolderPassesTheCheck() throws Exception {
        copyOfConf(home.resolve("conf"));
        for (String cmd : List.of("supervisor", "consumer", "lookup", "kudu-loader", "generate", "broker-watchdog",
                "status", "sizing", "check")) {
            Result r = launch(Map.of(), cmd, "--help");
            assertEquals(2, r.exit(), r.output());
            assertTrue(r.output().startsWith("eventindex: JAVA_HOME is "), cmd + ": " + r.output());
        }
    }

    /**
     * The options in the order the JVM gets them ({@code --jvm-options}): the distribution's defaults, then the site's
     * file, then EVENTINDEX_JAVA_OPTS. A tarball upgrade as docs/operations.md has it (the new version unpacked beside
     * the old one, the {@code /opt/eventindex} link moved, the site's folder outside both): the new version's changed
     * default arrives, the site's option stays and still comes after the defaults.
     */
    @Test
    void theSitesOptionsFollowTheDefaultsOfTheInstalledVersionAcrossAnUpgrade() throws Exception {
        Path site = copyOfConf(home.resolve("etc/eventindex"));
        Files.writeString(site.resolve("jvm/consumer.options"), "-Xmx3g\n-Dsite.option=kept\n",
                java.nio.file.StandardOpenOption.APPEND);
        install(home.resolve("opt/eventindex-1"));
        install(home.resolve("opt/eventindex-2"));
        Path newDefaults = home.resolve("opt/eventindex-2/jvm/consumer.options");
        Files.writeString(newDefaults, Files.readString(newDefaults).replace("-Xmx1g", "-Xmx1g\n-Dnew.default=2"));
        Path current = Files.createSymbolicLink(home.resolve("opt/eventindex"), home.resolve("opt/eventindex-1"));
        Map<String, String> env = Map.of("EVENTINDEX_CONF_DIR", site.toString(), "EVENTINDEX_JAVA_OPTS", "-Xmx5g");
        Path bin = current.resolve("bin/eventindex");

        Result before = launch(bin, env, "--jvm-options", "consumer", "run");
        assertEquals(0, before.exit(), before.output());
        Path real = home.toRealPath();
        assertEquals(List.of("# " + real.resolve("opt/eventindex-1/jvm/consumer.options")
                        + " (the distribution's defaults)", "-Xms1g", "-Xmx1g", "-XX:+ExitOnOutOfMemoryError",
                "-XX:+UseG1GC", "# " + site.resolve("jvm/consumer.options") + " (the site's)", "-Xmx3g",
                "-Dsite.option=kept", "# EVENTINDEX_JAVA_OPTS", "-Xmx5g"), before.output().lines().toList());

        Files.delete(current);
        Files.createSymbolicLink(current, home.resolve("opt/eventindex-2"));
        Result after = launch(bin, env, "--jvm-options", "consumer", "run");
        assertEquals(0, after.exit(), after.output());
        assertEquals(List.of("# " + real.resolve("opt/eventindex-2/jvm/consumer.options")
                        + " (the distribution's defaults)", "-Xms1g", "-Xmx1g", "-Dnew.default=2",
                "-XX:+ExitOnOutOfMemoryError", "-XX:+UseG1GC", "# " + site.resolve("jvm/consumer.options")
                        + " (the site's)", "-Xmx3g", "-Dsite.option=kept", "# EVENTINDEX_JAVA_OPTS", "-Xmx5g"),
                after.output().lines().toList());

        // the options the JVM is started with are those, in that order (a stand-in Java prints its arguments)
        Path java = fakeJavaHome("jdk-args", "17.0.13");
        Files.writeString(java.resolve("bin/java"), "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
        Map<String, String> withJava = new java.util.HashMap<>(env);
        withJava.put("JAVA_HOME", java.toString());
        List<String> args = launch(bin, withJava, "consumer", "run").output().lines().toList();
        List<String> options = after.output().lines().filter(l -> !l.startsWith("#")).toList();
        int first = args.indexOf("-Xms1g");
        assertTrue(first > 0, args.toString());
        assertEquals(options, args.subList(first, first + options.size()), "the JVM's arguments: " + args);
    }

    /** A Java home whose bin/java prints its own path, with a release file saying {@code version} (none if null). */
    private Path fakeJavaHome(String name, String version) throws IOException {
        Path java = Files.createDirectories(home.resolve(name).resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"ran $0\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (version != null) {
            Files.writeString(home.resolve(name).resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        }
        return home.resolve(name);
    }

    /** JAVA_HOME unset, and the stand-in home's bin/ first on the PATH (the system's tools after it). */
    private static Map<String, String> onPath(Path javaHome) {
        return Map.of("JAVA_HOME", "", "PATH", javaHome.resolve("bin") + ":/usr/bin:/bin");
    }

    @Test
    void withoutJavaHomeTheJavaOnThePathIsTakenWhenItIs17OrLater() throws Exception {
        copyOfConf(home.resolve("conf"));
        for (Path javaHome : List.of(fakeJavaHome("jdk-21", "21.0.5"), fakeJavaHome("jdk-17", "17.0.13"),
                fakeJavaHome("jdk-no-release", null))) {
            Result r = launch(onPath(javaHome), "generate", "--version");
            assertEquals(0, r.exit(), r.output());
            assertEquals("ran " + javaHome.resolve("bin/java"), r.output());
        }
    }

    @Test
    void withoutJavaHomeAnOlderJavaOnThePathIsPassedOverForTheSystemsJava17() throws Exception {
        copyOfConf(home.resolve("conf"));
        Path old = fakeJavaHome("jdk-11", "11.0.2");
        Result r = launch(onPath(old), "generate", "--version");
        assertFalse(r.output().contains("ran " + old), r.output());
        // On a machine with Java 17 at one of the EL9 or Debian paths the launcher runs it (here on an empty lib/, so
        // the class is not found); without one it stops, naming what it found.
        assertTrue(r.output().contains("Could not find or load main class org.eventindex.gen.GeneratorMain")
                || r.output().equals("eventindex: no Java 17+: set JAVA_HOME, put a Java 17+ 'java' on PATH or"
                + " install one (EL9: dnf install java-17-openjdk-headless; Debian: apt-get install"
                + " openjdk-17-jre-headless); found only " + old + " (Java 11)"), r.output());
    }
}
