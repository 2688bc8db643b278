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
 * without jvm/&lt;command&gt;.options or logback.xml, with exit 2 and a message naming the folder, instead of running
 * the JVM without its options and with Logback's DEBUG default. The script runs from a copy in an empty folder; a
 * bogus JAVA_HOME shows where a usable folder gets to (the Java check after it), so no JVM is started. Without
 * JAVA_HOME the launcher finds a Java 17+ by itself (the same units on EL9 and Debian): stand-in Java homes show which.
 */
final class LauncherConfDirTest {
    private static final Path SCRIPT = Path.of("src/dist/bin/eventindex");
    private static final Path CONF = Path.of("src/dist/conf");

    @TempDir
    Path home;

    private record Result(int exit, String output) {
    }

    private Result launch(Map<String, String> env, String... args) throws IOException, InterruptedException {
        Path bin = Files.createDirectories(home.resolve("bin")).resolve("eventindex");
        if (!Files.exists(bin)) {
            Files.copy(SCRIPT, bin);
            Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
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

    private Path copyOfConf(Path to) throws IOException {
        Files.createDirectories(to.resolve("jvm"));
        Files.copy(CONF.resolve("logback.xml"), to.resolve("logback.xml"));
        try (var files = Files.list(CONF.resolve("jvm"))) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve("jvm").resolve(f.getFileName()));
            }
        }
        return to;
    }

    @Test
    void aWrongOrMissingConfigurationFolderStopsTheLauncher() throws Exception {
        Path bogus = home.resolve("no-such-conf");
        Result wrong = launch(Map.of("EVENTINDEX_CONF_DIR", bogus.toString()), "consumer", "run");
        assertEquals(2, wrong.exit(), wrong.output());
        assertEquals("eventindex: EVENTINDEX_CONF_DIR is " + bogus + ", which is not a folder: set"
                + " EVENTINDEX_CONF_DIR to the folder holding logback.xml and jvm/consumer.options (the"
                + " distribution's conf/)", wrong.output());

        Result noDefault = launch(Map.of(), "supervisor", "run");
        assertEquals(2, noDefault.exit(), noDefault.output());
        assertTrue(noDefault.output().startsWith("eventindex: the default configuration folder " + home.resolve("conf")
                + " (EVENTINDEX_CONF_DIR is not set), which is not a folder"), noDefault.output());
    }

    @Test
    void aFolderWithoutTheOptionsOrTheLoggingConfigurationStopsTheLauncher() throws Exception {
        Path site = copyOfConf(home.resolve("site"));
        Map<String, String> env = Map.of("EVENTINDEX_CONF_DIR", site.toString());
        Files.delete(site.resolve("jvm/lookup.options"));
        Result noOptions = launch(env, "lookup", "serve");
        assertEquals(2, noOptions.exit(), noOptions.output());
        assertTrue(noOptions.output().startsWith("eventindex: EVENTINDEX_CONF_DIR is " + site
                + ", which has no readable jvm/lookup.options"), noOptions.output());

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
