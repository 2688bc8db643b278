package org.eventindex.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One of the project's scripts ({@code bin/...}) run as typed, with a PATH whose {@code mvn} is a stand-in that only
 * records being called and fails: a test sees what the script printed and whether it tried to build, and nothing is
 * built. For the checks that a script's {@code --help} and {@code --version} never build.
 *
 * @param exit  the script's exit status
 * @param out   standard output and error, merged
 * @param built whether the script called {@code mvn}
 */
public record ScriptRun(int exit, String out, boolean built) {
    private static final long TIMEOUT_SECONDS = 60;

    /**
     * Runs {@code script} with {@code args} under bash, its stand-in {@code mvn} and the mark it leaves in
     * {@code dir} (a new folder for each run).
     */
    public static ScriptRun run(Path dir, Path script, String... args) throws IOException, InterruptedException {
        Path mark = dir.resolve("mvn-was-called");
        Files.deleteIfExists(mark);
        Path stubs = stub(dir, "mvn", "touch '" + mark + "'\nexit 1").getParent();
        List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", stubs + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(script + " " + String.join(" ", args) + " did not return within "
                    + TIMEOUT_SECONDS + " s; output so far:\n" + out);
        }
        return new ScriptRun(p.exitValue(), out, Files.exists(mark));
    }

    /**
     * Puts a stand-in for {@code command} first on the PATH of the runs in {@code dir}: a shell script of
     * {@code body}. Returns its file.
     */
    public static Path stub(Path dir, String command, String body) throws IOException {
        Path stubs = Files.createDirectories(dir.resolve("stubs"));
        Path file = Files.writeString(stubs.resolve(command), "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    /**
     * Checks the {@code --help}, {@code -h} and {@code --version} of {@code bin/<name>} in the checkout {@code root}
     * after a build: the command's own usage ({@code Usage: bin/<name> }) and version line ({@code bin/<name> }),
     * exit 0, no build. Returns what is wrong, empty when nothing is.
     */
    public static List<String> checkBuiltHelpAndVersion(Path dir, Path root, String name)
            throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        for (String option : List.of("--help", "-h", "--version")) {
            ScriptRun r = run(dir, root.resolve("bin").resolve(name), option);
            String expected = option.equals("--version") ? "bin/" + name + " " : "Usage: bin/" + name + " ";
            if (r.exit() != 0 || !r.out().startsWith(expected) || r.built()) {
                problems.add("bin/" + name + " " + option + ": exit " + r.exit() + (r.built() ? ", ran mvn" : "")
                        + ", expected output starting with '" + expected + "':\n" + r.out());
            }
        }
        return problems;
    }

    /**
     * Checks the {@code --help} of a copy of {@code bin/<name>} in a tree that is not built: the script's header
     * without its comment marks, naming the build, exit 0, no build. Returns what is wrong, empty when nothing is.
     */
    public static List<String> checkUnbuiltHelp(Path dir, Path root, String name)
            throws IOException, InterruptedException {
        Path script = Files.createDirectories(dir.resolve("tree/bin")).resolve(name);
        Files.copy(root.resolve("bin").resolve(name), script);
        ScriptRun r = run(dir, script, "--work", "/tmp/x", "--help");
        List<String> problems = new ArrayList<>();
        if (r.exit() != 0 || r.built() || r.out().contains("#") || !r.out().contains(
                "Not built yet: the options are listed by bin/" + name + " --help after a build")) {
            problems.add("bin/" + name + " --help in a tree not built: exit " + r.exit()
                    + (r.built() ? ", ran mvn" : "") + ", expected the header without '#' and 'Not built yet':\n"
                    + r.out());
        }
        return problems;
    }
}
