package org.eventindex.deploy.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** {@code --name value} options with defaults, for the benchmark commands. */
final class BenchOptions {
    private BenchOptions() {
    }

    /** @throws IllegalArgumentException on an unknown option or a missing value */
    static Map<String, String> parse(String[] args, Map<String, String> defaults) {
        Map<String, String> out = new HashMap<>(defaults);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !defaults.containsKey(a.substring(2)) || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: [--" + String.join(" N] [--", defaults.keySet())
                        + " N]; bad argument '" + a + "'");
            }
            out.put(a.substring(2), args[++i]);
        }
        return out;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
