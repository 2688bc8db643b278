package org.eventindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eventindex.testing.ScriptRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deploy scripts' {@code --help} and {@code --version} answer without building ({@link ScriptRun}: {@code mvn}
 * on the PATH is a stand-in that records being called and fails), and {@code bin/demo} checks its options before it
 * builds. An integration test because the built case needs deploy/target/demo.classpath (package phase). The
 * benchmarks' scripts are checked by the benchmarks module's {@code BenchScriptsIT}.
 */
class ScriptHelpIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path dir;

    private ScriptRun run(Path script, String... args) throws IOException, InterruptedException {
        return ScriptRun.run(dir, script, args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "chaos", "differential", "kerberos-soak"})
    void helpAndVersionOfABuiltTreeAreTheCommandsOwnWithoutABuild(String name) throws Exception {
        assertEquals(List.of(), ScriptRun.checkBuiltHelpAndVersion(dir, ROOT, name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"demo", "chaos", "differential", "kerberos-soak"})
    void helpOfATreeNotBuiltIsTheScriptsHeaderWithoutABuild(String name) throws Exception {
        assertEquals(List.of(), ScriptRun.checkUnbuiltHelp(dir, ROOT, name));
    }

    /** bin/demo refuses an unknown option, a stray argument or a missing value before it builds. */
    @org.junit.jupiter.api.Test
    void demoRefusesABadOptionWithoutABuild() throws Exception {
        Path demo = ROOT.resolve("bin/demo");
        for (List<String> args : List.of(List.of("--bogus"), List.of("--scale", "2", "extra"),
                List.of("--work=/tmp/x", "--keep", "--bogus=1"))) {
            ScriptRun r = run(demo, args.toArray(String[]::new));
            assertEquals(2, r.exit(), r.out());
            String bad = args.get(args.size() - 1);
            assertEquals("bin/demo: unknown option or stray argument '" + bad + "' (bin/demo --help lists the"
                    + " options)", r.out().strip());
            assertFalse(r.built(), "bin/demo " + args + " ran mvn");
        }
        ScriptRun r = run(demo, "--datasets");
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
