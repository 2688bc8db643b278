package org.eventindex.deploy.chaos;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted over a daemon's data directory so that the harness can make that disk full ({@link #fill()})
 * and free it again ({@link #release()}). Mounting needs root; where it is impossible, {@link #mount} returns empty
 * and says why, and the disk-full faults are skipped with that reason.
 */
final class TmpfsDisk implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TmpfsDisk.class);
    private static final String FILLER = ".chaos-filler";
    private final Path mountPoint;

    private TmpfsDisk(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    /**
     * Mounts a tmpfs of {@code megabytes} on {@code dir} (created, must be empty).
     *
     * @param whyNot receives the reason when mounting is impossible
     */
    static Optional<TmpfsDisk> mount(Path dir, int megabytes, java.util.function.Consumer<String> whyNot) {
        try {
            Files.createDirectories(dir);
            String out = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,mode=0755", "tmpfs",
                    dir.toString()));
            if (out != null) {
                whyNot.accept("cannot mount a tmpfs on " + dir + " (needs root): " + out.strip());
                return Optional.empty();
            }
            return Optional.of(new TmpfsDisk(dir));
        } catch (IOException e) {
            whyNot.accept("cannot mount a tmpfs on " + dir + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /** @return null on success, else the command's output */
    static String run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return String.join(" ", cmd) + " did not finish";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return p.exitValue() == 0 ? null : String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out;
    }

    /** Writes a filler file until the file system refuses more: every later write by the daemon gets ENOSPC. */
    synchronized long fill() throws IOException {
        byte[] chunk = new byte[256 * 1024];
        long written = 0;
        Path filler = mountPoint.resolve(FILLER);
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(chunk);
                written += chunk.length;
            }
        } catch (IOException expectedWhenFull) {
            // ENOSPC: the disk is full, which is the fault; fill the last blocks byte-wise for good measure.
            try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
                for (int i = 0; i < chunk.length; i++) {
                    out.write(0);
                    written++;
                }
            } catch (IOException full) {
                // completely full now
            }
        }
        return written;
    }

    synchronized void release() throws IOException {
        Files.deleteIfExists(mountPoint.resolve(FILLER));
    }

    @Override
    public void close() {
        try {
            String out = run(List.of("umount", "-l", mountPoint.toString()));
            if (out != null) {
                LOG.warn("unmounting {}: {}", mountPoint, out.strip());
            }
        } catch (IOException e) {
            LOG.warn("cannot unmount {}: {}", mountPoint, e.getMessage());
        }
    }
}
