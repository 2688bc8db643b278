package org.eventindex.distribution;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The relative links of the Markdown files of a tree ({@code [text](target)}, {@code ![alt](target)} and
 * {@code [label]: target}), outside code blocks and code spans, and those of them that do not resolve to a file or
 * folder inside the tree. Links with a scheme ({@code https:}, {@code mailto:}) and links to an anchor of the same
 * page are not relative and are left out; a target's own {@code #anchor} is not checked, only its file.
 */
final class DocLinks {
    private static final Pattern INLINE = Pattern.compile("!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+).*?\\1");

    /** A relative link: the file (relative to the tree) and line it is on, and its target as written. */
    record Link(String file, int line, String target) {
    }

    /** What {@link #check} found: every relative link, and the dangling ones, each described. */
    record Report(List<Link> links, List<String> dangling) {
    }

    private DocLinks() {
    }

    /** Checks every Markdown file under {@code root}. */
    static Report check(Path root) throws IOException {
        Path top = root.toAbsolutePath().normalize();
        List<Link> links = new ArrayList<>();
        List<String> dangling = new ArrayList<>();
        List<Path> docs;
        try (Stream<Path> files = Files.walk(top)) {
            docs = files.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p)).sorted().toList();
        }
        for (Path doc : docs) {
            String name = top.relativize(doc).toString();
            for (Link link : links(name, Files.readString(doc, StandardCharsets.UTF_8))) {
                links.add(link);
                String path = URLDecoder.decode(link.target().replaceFirst("[#?].*$", "").replace("+", "%2B"),
                        StandardCharsets.UTF_8);
                if (path.isEmpty()) {
                    continue;
                }
                Path target = doc.getParent().resolve(path).normalize();
                String where = name + ":" + link.line() + ": link '" + link.target() + "'";
                if (!target.startsWith(top)) {
                    dangling.add(where + " points outside the tree, to " + target);
                } else if (!Files.exists(target)) {
                    dangling.add(where + ": " + top.relativize(target) + " does not exist");
                }
            }
        }
        return new Report(List.copyOf(links), List.copyOf(dangling));
    }

    /** The relative links of one Markdown text, with their line numbers. */
    static List<Link> links(String file, String markdown) {
        List<Link> out = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        String fence = null;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String trimmed = line.stripLeading();
            if (fence != null) {
                if (trimmed.startsWith(fence)) {
                    fence = null;
                }
                continue;
            }
            if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                fence = trimmed.substring(0, 3);
                continue;
            }
            String text = CODE_SPAN.matcher(line).replaceAll("");
            Matcher ref = REFERENCE.matcher(text);
            if (ref.matches()) {
                add(out, file, i + 1, ref.group(1));
                continue;
            }
            Matcher m = INLINE.matcher(text);
            while (m.find()) {
                add(out, file, i + 1, m.group(1));
            }
        }
        return out;
    }

    private static void add(List<Link> out, String file, int line, String target) {
        if (!target.startsWith("#") && !SCHEME.matcher(target).matches()) {
            out.add(new Link(file, line, target));
        }
    }
}
