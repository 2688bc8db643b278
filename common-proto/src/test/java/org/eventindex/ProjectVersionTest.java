package org.eventindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The build fills in the git commit of the checkout it runs in (the parent POM's git-info), and {@code unknown} where
 * there is none (a source tarball).
 */
class ProjectVersionTest {
    private static final Path TOP = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theCommitIsTheCheckoutsHeadOrUnknownWithoutOne() throws IOException, InterruptedException {
        if (!Files.exists(TOP.resolve(".git"))) {
            assertEquals(ProjectVersion.UNKNOWN, ProjectVersion.commit());
            assertEquals(ProjectVersion.UNKNOWN, ProjectVersion.dirty());
            assertEquals(ProjectVersion.get() + " (commit unknown)", ProjectVersion.describe());
            return;
        }
        Process git = new ProcessBuilder(List.of("git", "rev-parse", "HEAD")).directory(TOP.toFile())
                .redirectErrorStream(true).start();
        String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0, "git rev-parse HEAD: " + head);
        assertEquals(head, ProjectVersion.commit());
        assertTrue(List.of("true", "false").contains(ProjectVersion.dirty()), ProjectVersion.dirty());
        String describe = ProjectVersion.describe();
        assertTrue(describe.equals(ProjectVersion.get() + " (commit " + head + ")")
                || describe.equals(ProjectVersion.get() + " (commit " + head + ", dirty tree)"), describe);
        assertEquals("true".equals(ProjectVersion.dirty()), describe.endsWith(", dirty tree)"), describe);
    }
}
