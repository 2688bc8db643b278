package org.eventindex.distribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link DocLinks} on a small tree: what counts as a relative link, and which ones dangle. */
class DocLinksTest {
    @TempDir
    Path root;

    @Test
    void relativeLinksAreFoundOutsideCodeAndTheDanglingOnesNamed() throws IOException {
        Files.createDirectories(root.resolve("docs/img"));
        Files.createDirectories(root.resolve("deploy/monitoring"));
        Files.writeString(root.resolve("deploy/monitoring/README.md"), "Back to [ops](../../docs/ops.md#alerts).\n");
        Files.writeString(root.resolve("docs/img/a b.png"), "png");
        Files.writeString(root.resolve("docs/ops.md"), String.join("\n",
                "# Ops",
                "See [rules](../deploy/monitoring/README.md), [the runbook](#runbook) and [site](https://example.org/x).",
                "![picture](img/a%20b.png \"title\") and [a folder](../deploy/monitoring/)",
                "A `[not a link](missing-in-code.md)` span, and [gone](decisions/0001-gone.md#why).",
                "```",
                "[in a block](missing-in-block.md)",
                "```",
                "[src]: ../supervisor/src/Main.java",
                "[up]: ../../outside.md",
                ""));

        DocLinks.Report report = DocLinks.check(root);

        assertEquals(List.of("../../docs/ops.md#alerts"), report.links().stream()
                .filter(l -> l.file().startsWith("deploy")).map(DocLinks.Link::target).toList());
        assertEquals(List.of("../deploy/monitoring/README.md", "img/a%20b.png", "../deploy/monitoring/",
                "decisions/0001-gone.md#why", "../supervisor/src/Main.java", "../../outside.md"),
                report.links().stream().filter(l -> l.file().startsWith("docs")).map(DocLinks.Link::target).toList());
        assertEquals(List.of(
                "docs/ops.md:4: link 'decisions/0001-gone.md#why': docs/decisions/0001-gone.md does not exist",
                "docs/ops.md:8: link '../supervisor/src/Main.java': supervisor/src/Main.java does not exist",
                "docs/ops.md:9: link '../../outside.md' points outside the tree, to "
                        + root.toAbsolutePath().normalize().getParent().resolve("outside.md")),
                report.dangling());
    }
}
