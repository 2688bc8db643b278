package org.eventindex.distribution;

import org.eventindex.ProjectVersion;
import org.eventindex.testing.ScriptRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/eventindex} of the source checkout after {@code mvn -DskipTests package}: it answers {@code --version}
 * as the distribution does, and runs its commands on the distribution's runtime class path, which holds none of the
 * test services (embedded broker, minicluster, kudu-test-utils, S3Proxy), nor the test kit, deploy or the benchmarks.
 * An integration test because the class path file is written at the package phase.
 */
class SourceCheckoutLauncherIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final String VERSION = System.getProperty("ei.project.version");

    @TempDir
    Path dir;

    @Test
    void versionIsTheDistributionsAnswer() throws Exception {
        ScriptRun r = ScriptRun.run(dir, ROOT.resolve("bin/eventindex"), "--version");
        assertEquals(0, r.exit(), r.out());
        assertEquals("eventindex " + ProjectVersion.describe(), r.out().strip());
        assertFalse(r.built(), "bin/eventindex --version ran mvn");
    }

    @Test
    void commandsRunOnTheDistributionsRuntimeClassPath() throws Exception {
        // a stand-in java that prints the command line it was given, one argument a line
        ScriptRun.stub(dir, "java", "for a in \"$@\"; do echo \"$a\"; done");
        ScriptRun r = ScriptRun.run(dir, ROOT.resolve("bin/eventindex"), "lookup", "--help");
        assertEquals(0, r.exit(), r.out());
        List<String> args = r.out().lines().toList();
        int cp = args.indexOf("-cp");
        assertTrue(cp >= 0 && cp + 1 < args.size(), "no -cp in " + args);
        assertEquals(List.of("org.eventindex.lookup.LookupMain", "--help"), args.subList(cp + 2, args.size()));
        List<Path> entries = Arrays.stream(args.get(cp + 1).split(":")).map(Path::of).toList();
        assertTrue(entries.stream().anyMatch(p -> p.getFileName().toString().startsWith("eventindex-lookup-")),
                "the lookup module is not on " + entries);
        List<String> problems = new ArrayList<>();
        for (Path jar : entries) {
            problems.addAll(LibContents.jarProblems(jar, VERSION));
        }
        assertEquals(List.of(), problems);
    }
}
