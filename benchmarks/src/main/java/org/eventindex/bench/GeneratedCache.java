package org.eventindex.bench;

import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.Json;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Generated SPB files kept between benchmark runs, so that a run on a quiet machine spends none of its time
 * generating (the seed's whole dataset takes about 8 minutes to write). The generator is a pure function of its
 * spec, so a folder is reused when its key matches: a digest of the spec and of the generator's own classes (a
 * changed generator writes other bytes, and its old files are then not used). The folder holds the SPB files and
 * {@code dataset.json}, written last, so that a generation cut short is never taken for a complete one.
 */
final class GeneratedCache {
    static final String LEDGER = "dataset.json";

    private final Path root;

    GeneratedCache(Path root) {
        this.root = Objects.requireNonNull(root, "root is null");
    }

    /** Where the spec's files live in this cache: {@code ROOT/<dataset>-<key>}. */
    Path folder(GeneratorSpec spec) throws IOException {
        return root.resolve(spec.datasetName() + "-" + key(spec));
    }

    /** The cached dataset of {@code spec}, or null when the folder is missing, incomplete or stale. */
    GeneratedDataset find(GeneratorSpec spec) throws IOException {
        Path ledger = folder(spec).resolve(LEDGER);
        if (!Files.isRegularFile(ledger)) {
            return null;
        }
        GeneratedDataset ds = Json.read(Files.readAllBytes(ledger), GeneratedDataset.class);
        for (GeneratedJob j : ds.jobs()) {
            if (!Files.isRegularFile(j.spbFile())) {
                return null;
            }
        }
        return ds;
    }

    /**
     * The cached dataset of {@code spec}, generated first when it is not there ({@code progress} told per attempt);
     * {@code reused} is told whether the files were already there.
     */
    GeneratedDataset get(GeneratorSpec spec, DatasetGenerator.Progress progress,
                         java.util.function.Consumer<Boolean> reused) throws IOException {
        GeneratedDataset found = find(spec);
        reused.accept(found != null);
        if (found != null) {
            return found;
        }
        Path folder = folder(spec);
        ConsumerBenchMain.deleteTree(folder);
        GeneratedDataset ds = new DatasetGenerator(spec, progress).generate(folder.resolve("spb"));
        Path tmp = folder.resolve(LEDGER + ".tmp");
        Files.write(tmp, Json.write(ds));
        Files.move(tmp, folder.resolve(LEDGER), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return ds;
    }

    /** A digest of the spec and of the generator's class files (names and bytes), as hex (16 characters). */
    static String key(GeneratorSpec spec) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
        md.update(spec.toString().getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, byte[]> c : generatorClasses().entrySet()) {
            md.update(c.getKey().getBytes(StandardCharsets.UTF_8));
            md.update(c.getValue());
        }
        return HexFormat.of().formatHex(md.digest(), 0, 8);
    }

    /**
     * The generator package's class files by name, from its jar or a build's class folder. The entries' contents
     * only: a jar's own bytes change with every build (its entries' times), the classes do not.
     */
    private static SortedMap<String, byte[]> generatorClasses() throws IOException {
        CodeSource source = DatasetGenerator.class.getProtectionDomain().getCodeSource();
        if (source == null) {
            throw new IOException("cannot tell where the generator's classes come from");
        }
        Path where;
        try {
            where = Path.of(source.getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException("the generator's code location " + source.getLocation() + " is not a path", e);
        }
        String pkg = DatasetGenerator.class.getPackageName().replace('.', '/') + "/";
        SortedMap<String, byte[]> out = new TreeMap<>();
        if (Files.isRegularFile(where)) {
            try (JarFile jar = new JarFile(where.toFile())) {
                for (JarEntry e : java.util.Collections.list(jar.entries())) {
                    if (e.getName().startsWith(pkg) && e.getName().endsWith(".class")) {
                        try (InputStream in = jar.getInputStream(e)) {
                            out.put(e.getName(), in.readAllBytes());
                        }
                    }
                }
            }
        } else {
            try (Stream<Path> s = Files.list(where.resolve(pkg))) {
                for (Path p : s.filter(p -> p.toString().endsWith(".class")).toList()) {
                    out.put(pkg + p.getFileName(), Files.readAllBytes(p));
                }
            }
        }
        if (out.isEmpty()) {
            throw new IOException("no generator classes found in " + where);
        }
        return out;
    }
}
