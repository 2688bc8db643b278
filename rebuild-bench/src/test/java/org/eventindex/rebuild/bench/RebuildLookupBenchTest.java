package org.eventindex.rebuild.bench;

import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RebuildLookupBenchTest {
    /** --help, --version and an unknown option behave as on every command, without starting anything. */
    @Test
    void followsTheCommandLineConventions() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("bench-rebuild-lookups",
                args -> CommandTreeWalk.capture((o, e) -> RebuildLookupBench.run(args, o, e))));
    }
}
