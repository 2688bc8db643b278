package org.eventindex.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eventindex.ProjectVersion;

/**
 * Walks a command line as an operator would: {@code --help} of the command, then of every subcommand its help lists
 * (so a listed command that does not exist fails), and for each: help exits 0 on stdout with a usage naming the
 * command as it is typed ({@code eventindex supervisor resignal}, never a class); {@code --version} exits 0 with the
 * project version; an unknown option and stray arguments exit 2 with a message naming them.
 */
public final class CommandTreeWalk {
    /**
     * The exit status of a usage error under the command-line conventions ({@code USAGE_ERROR} of the cli
     * module, which the kit does not depend on so that the cli module's own tests can use the kit; its
     * {@code CommandLinesTest} checks that the two agree).
     */
    public static final int USAGE_ERROR = 2;

    /** What a run printed and returned. */
    public record Result(int exit, String out, String err) {
    }

    /** One run of the command under test with these arguments. */
    @FunctionalInterface
    public interface Runner {
        Result run(String... args);
    }

    /** The body of a run that prints to the streams it is given and returns its exit status. */
    @FunctionalInterface
    public interface Printing {
        int run(PrintStream out, PrintStream err);
    }

    private CommandTreeWalk() {
    }

    /** Runs {@code body} with captured streams. */
    public static Result capture(Printing body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        int exit = body.run(o, e);
        o.flush();
        e.flush();
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Checks the command and every subcommand its help lists, recursively.
     *
     * @param name how the command is typed, e.g. {@code eventindex supervisor}: every usage starts with it
     * @return the subcommand paths visited, the command itself first (an empty list)
     */
    public static List<List<String>> check(String name, Runner runner) {
        List<List<String>> visited = new ArrayList<>();
        walk(name, List.of(), runner, visited);
        return visited;
    }

    private static void walk(String name, List<String> path, Runner runner, List<List<String>> visited) {
        visited.add(path);
        String typed = path.isEmpty() ? name : name + " " + String.join(" ", path);

        Result help = runner.run(args(path, "--help"));
        assertEquals(0, help.exit(), typed + " --help: " + help.err());
        assertEquals("", help.err(), typed + " --help");
        String usage = help.out().lines().filter(l -> l.startsWith("Usage: ")).findFirst().orElse("");
        assertTrue(usage.equals("Usage: " + typed) || usage.startsWith("Usage: " + typed + " "),
                typed + " --help does not show its usage:\n" + help.out());
        assertFalse(help.out().contains("org.eventindex") || help.out().contains("<main class>"),
                typed + " --help names a class:\n" + help.out());

        if (!path.isEmpty() && path.get(path.size() - 1).equals("help")) {
            return; // picocli's 'help [COMMAND]' has --help only
        }
        Result version = runner.run(args(path, "--version"));
        assertEquals(0, version.exit(), typed + " --version: " + version.err());
        assertTrue(version.out().contains(ProjectVersion.get()), typed + " --version: " + version.out());

        Result unknown = runner.run(args(path, "--no-such-option"));
        assertEquals(USAGE_ERROR, unknown.exit(), typed + " --no-such-option: " + unknown.err());
        assertTrue(unknown.err().contains("--no-such-option"), typed + " --no-such-option: " + unknown.err());
        assertEquals("", unknown.out(), typed + " --no-such-option");

        // three, so that a command taking one FILE argument still has strays to refuse
        Result stray = runner.run(args(path, "stray-1", "stray-2", "stray-3"));
        assertEquals(USAGE_ERROR, stray.exit(), typed + " stray-1 stray-2 stray-3: " + stray.err());
        assertTrue(stray.err().contains("'stray-"), typed + " stray arguments: " + stray.err());

        for (String sub : listedCommands(help.out())) {
            List<String> subPath = new ArrayList<>(path);
            subPath.add(sub);
            walk(name, List.copyOf(subPath), runner, visited);
        }
    }

    /** The names under {@code Commands:} in a picocli help text (indented by two, descriptions further). */
    static List<String> listedCommands(String help) {
        List<String> names = new ArrayList<>();
        boolean in = false;
        for (String line : help.split("\\R")) {
            if (line.equals("Commands:")) {
                in = true;
            } else if (in && line.isBlank()) {
                in = false;
            } else if (in && line.startsWith("  ") && !line.startsWith("   ")) {
                names.add(line.strip().split("\\s+|,")[0]);
            }
        }
        return names;
    }

    private static String[] args(List<String> path, String... more) {
        List<String> all = new ArrayList<>(path);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
