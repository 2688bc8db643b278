package org.eventindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scripts' {@code --help} prints help without building: {@code mvn} on the PATH is a stand-in that records being
 * called and fails. An integration test because the built case needs deploy/target/demo.classpath (package phase).
 */
class ScriptHelpIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path dir;

    private record Run(int exit, String out, boolean built) {
    }

    /** Runs {@code script} with a PATH whose {@code mvn} only leaves a mark. */
    private Run run(Path script, String... args) throws IOException, InterruptedException {
        Path stubs = Files.createDirectories(dir.resolve("stubs"));
        Path mark = dir.resolve("mvn-was-called");
        Path mvn = Files.writeString(stubs.resolve("mvn"), "#!/bin/sh\ntouch '" + mark + "'\nexit 1\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwx------"));
        List<String> command = new java.util.ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", stubs + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), script + " did not return");
        return new Run(p.exitValue(), out, Files.exists(mark));
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "chaos", "differential", "bench-consumer", "bench-seed", "bench-supervisor-rate"})
    void helpOfABuiltTreeIsTheCommandsOwnWithoutABuild(String name) throws Exception {
        for (String option : List.of("--help", "-h")) {
            Run r = run(ROOT.resolve("bin").resolve(name), option);
            assertEquals(0, r.exit(), r.out());
            assertTrue(r.out().startsWith("Usage: bin/" + name + " "), r.out());
            assertFalse(r.built(), "bin/" + name + " " + option + " ran mvn");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "chaos", "differential", "bench-consumer", "bench-seed", "bench-supervisor-rate"})
    void helpOfATreeNotBuiltIsTheScriptsHeaderWithoutABuild(String name) throws Exception {
        Path script = Files.createDirectories(dir.resolve("tree/bin")).resolve(name);
        Files.copy(ROOT.resolve("bin").resolve(name), script);
        Run r = run(script, "--work", "/tmp/x", "--help");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("Not built yet: the options are listed by bin/" + name + " --help after a build"),
                r.out());
        assertFalse(r.out().contains("#"), "the header is printed without its comment marks:\n" + r.out());
        assertFalse(r.built(), "bin/" + name + " --help ran mvn");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench-lookup", "bench-producer", "bench-supervisor"})
    void helpOfABenchmarkIsItsHeaderWithoutABuild(String name) throws Exception {
        Run r = run(ROOT.resolve("bin").resolve(name), "--help");
        assertEquals(0, r.exit(), r.out());
        String header = Files.readAllLines(ROOT.resolve("bin").resolve(name)).get(1).substring(2);
        assertTrue(r.out().startsWith(header + "\n"), r.out());
        assertFalse(r.built(), "bin/" + name + " --help ran mvn");
    }

    /** bin/demo refuses an unknown option, a stray argument or a missing value before it builds. */
    @org.junit.jupiter.api.Test
    void demoRefusesABadOptionWithoutABuild() throws Exception {
        Path demo = ROOT.resolve("bin/demo");
        for (List<String> args : List.of(List.of("--bogus"), List.of("--scale", "2", "extra"),
                List.of("--work=/tmp/x", "--keep", "--bogus=1"))) {
            Run r = run(demo, args.toArray(String[]::new));
            assertEquals(2, r.exit(), r.out());
            String bad = args.get(args.size() - 1);
            assertEquals("bin/demo: unknown option or stray argument '" + bad + "' (bin/demo --help lists the"
                    + " options)", r.out().strip());
            assertFalse(r.built(), "bin/demo " + args + " ran mvn");
        }
        Run r = run(demo, "--datasets");
        assertEquals(2, r.exit(), r.out());
        assertEquals("bin/demo: option --datasets needs a value (bin/demo --help lists the options)", r.out().strip());
        assertFalse(r.built(), "bin/demo --datasets ran mvn");
        // good options pass the check: the build comes next (the stand-in mvn fails it)
        r = run(demo, "--work", "/tmp/x", "--scale=2", "--keep");
        assertTrue(r.built(), r.out());
    }

    /** The options bin/demo checks before building are DemoMain's, no more, no less. */
    @org.junit.jupiter.api.Test
    void theOptionsBinDemoChecksAreDemoMains() throws IOException {
        java.util.Set<String> values = new java.util.TreeSet<>();
        java.util.Set<String> flags = new java.util.TreeSet<>(List.of("--version", "-V"));
        for (java.lang.reflect.Field f : DemoMain.class.getDeclaredFields()) {
            picocli.CommandLine.Option o = f.getAnnotation(picocli.CommandLine.Option.class);
            if (o != null) {
                (f.getType() == boolean.class ? flags : values).addAll(List.of(o.names()));
            }
        }
        String script = Files.readString(ROOT.resolve("bin/demo"));
        assertEquals(values, listed(script, "value_options"));
        assertEquals(flags, listed(script, "flag_options"));
    }

    private static java.util.Set<String> listed(String script, String variable) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + variable + "=\"([^\"]*)\"$")
                .matcher(script);
        assertTrue(m.find(), variable + " not in bin/demo");
        return new java.util.TreeSet<>(List.of(m.group(1).strip().split(" +")));
    }
}
