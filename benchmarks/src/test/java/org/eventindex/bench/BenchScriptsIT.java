package org.eventindex.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.eventindex.testing.ScriptRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every {@code bin/bench-*} answers {@code --help} and {@code --version} from this module's class path without
 * building, and {@code --help} with its header in a tree not built ({@link ScriptRun}). An integration test because
 * the built case needs benchmarks/target/bench.classpath (package phase).
 */
class BenchScriptsIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"bench-consumer", "bench-lookup", "bench-overlap", "bench-producer", "bench-seed",
            "bench-supervisor", "bench-supervisor-rate"})
    void helpAndVersionOfABuiltTreeAreTheBenchmarksOwnWithoutABuild(String name) throws Exception {
        assertEquals(List.of(), ScriptRun.checkBuiltHelpAndVersion(dir, ROOT, name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench-consumer", "bench-lookup", "bench-overlap", "bench-producer", "bench-seed",
            "bench-supervisor", "bench-supervisor-rate"})
    void helpOfATreeNotBuiltIsTheScriptsHeaderWithoutABuild(String name) throws Exception {
        assertEquals(List.of(), ScriptRun.checkUnbuiltHelp(dir, ROOT, name));
    }
}
