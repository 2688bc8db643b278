package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The walk's reading of a help text; the walk over a real command tree is tested with the cli module's CommandLines. */
class CommandTreeWalkTest {

    @Test
    void theWalkReadsTheCommandsSectionOfAHelp() {
        String help = "Usage: x [-hV] [COMMAND]\n  -h, --help   help\nCommands:\n  run      Runs the daemon\n"
                + "             until SIGTERM.\n  config-keys  Prints the keys.\n\nExit codes:\n  0   done\n";
        assertEquals(List.of("run", "config-keys"), CommandTreeWalk.listedCommands(help));
    }
}
