package org.eventindex.deploy.chaos;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A real disk that the harness can make slow for one process: an ext4 file system on a loop device mounted over a
 * directory, and a cgroup (v1 {@code blkio}) whose {@code blkio.throttle.write_iops_device} limits the writes that the
 * processes put in it issue to that device (the fsyncs of the supervisor's journal are issued by its own threads, so
 * they are throttled). device-mapper's {@code delay} target would be the other way, but this kernel has no
 * device-mapper; {@link #mount} says why when neither works (no root, no loop device, no blkio controller), and the
 * slow-disk fault is then skipped with that reason. A process started by {@code ip netns exec} (the chaos driver on
 * its control host) sees a fresh sysfs without the cgroup mounts, so there the blkio hierarchy is mounted again on a
 * private folder of its own mount namespace ({@link #blkioRoot}).
 */
final class SlowDisk implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SlowDisk.class);
    private static final Path BLKIO = Path.of("/sys/fs/cgroup/blkio");

    private final Path mountPoint;
    private final Path image;
    private final String device;
    private final Path cgroup;
    /** The blkio hierarchy's root: {@link #BLKIO}, or the private mount of {@link #blkioRoot}. */
    private final Path root;

    private SlowDisk(Path mountPoint, Path image, String device, Path cgroup) {
        this.mountPoint = mountPoint;
        this.image = image;
        this.device = device;
        this.cgroup = cgroup;
        this.root = cgroup.getParent();
    }

    /**
     * The blkio hierarchy: {@link #BLKIO} where it is mounted, else the same hierarchy mounted on a folder beside
     * {@code dir} (as root; inside {@code ip netns exec}'s mount namespace the mount is private to this process and
     * goes with it); null when neither works.
     */
    private static Path blkioRoot(Path dir, Consumer<String> whyNot) throws IOException {
        if (Files.isRegularFile(BLKIO.resolve("cgroup.procs"))) {
            return BLKIO;
        }
        Path own = dir.resolveSibling(dir.getFileName() + ".blkio");
        Files.createDirectories(own);
        if (Files.isRegularFile(own.resolve("cgroup.procs"))) {
            return own;
        }
        String failed = TmpfsDisk.run(List.of("mount", "-t", "cgroup", "-o", "blkio", "cgroup", own.toString()));
        if (failed != null) {
            whyNot.accept("no cgroup v1 blkio controller at " + BLKIO + " to slow one process's writes, and mounting"
                    + " one on " + own + " failed: " + failed.strip());
            return null;
        }
        return own;
    }

    /**
     * Mounts a fresh ext4 of {@code megabytes} on {@code dir} (created, must be empty), its image beside it.
     *
     * @param whyNot receives the reason when it is impossible here
     */
    static Optional<SlowDisk> mount(Path dir, int megabytes, Consumer<String> whyNot) {
        Path image = dir.resolveSibling(dir.getFileName() + ".ext4");
        try {
            Files.createDirectories(dir);
            Path blkio = blkioRoot(dir, whyNot);
            if (blkio == null) {
                return Optional.empty();
            }
            try (var f = java.nio.channels.FileChannel.open(image, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE)) {
                f.truncate(0);
                f.write(java.nio.ByteBuffer.allocate(1), (long) megabytes * 1024 * 1024 - 1);
            }
            String failed = TmpfsDisk.run(List.of("mkfs.ext4", "-q", "-F", image.toString()));
            if (failed == null) {
                failed = TmpfsDisk.run(List.of("mount", "-o", "loop", image.toString(), dir.toString()));
            }
            if (failed != null) {
                whyNot.accept("cannot mount an ext4 loop device on " + dir + " (needs root and a loop device): "
                        + failed.strip());
                Files.deleteIfExists(image);
                if (!blkio.equals(BLKIO)) {
                    TmpfsDisk.run(List.of("umount", blkio.toString()));
                }
                return Optional.empty();
            }
            String source = output(List.of("findmnt", "-no", "SOURCE", dir.toString())).strip();
            String majMin = Files.readString(Path.of("/sys/class/block", Path.of(source).getFileName().toString(),
                    "dev"), StandardCharsets.US_ASCII).strip();
            Path group = blkio.resolve("eventindex-chaos-" + ProcessHandle.current().pid() + "-"
                    + dir.getFileName());
            Files.createDirectories(group);
            return Optional.of(new SlowDisk(dir, image, majMin, group));
        } catch (IOException | RuntimeException e) {
            whyNot.accept("cannot set up a slow disk on " + dir + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    Path path() {
        return mountPoint;
    }

    /** The loop device's {@code major:minor}. */
    String device() {
        return device;
    }

    /** Moves the process (all its threads) into the slow cgroup, whose writes to the disk get {@code iops}. */
    synchronized void slow(long pid, int iops) throws IOException {
        Files.writeString(cgroup.resolve("blkio.throttle.write_iops_device"), device + " " + iops);
        Files.writeString(cgroup.resolve("cgroup.procs"), Long.toString(pid));
    }

    /** Moves the process back to the root cgroup and lifts the limit (a process already gone is fine). */
    synchronized void lift(long pid) {
        try {
            Files.writeString(root.resolve("cgroup.procs"), Long.toString(pid));
        } catch (IOException gone) {
            LOG.debug("process {} not moved back from {}: {}", pid, cgroup, gone.toString());
        }
        try {
            Files.writeString(cgroup.resolve("blkio.throttle.write_iops_device"), device + " 0");
        } catch (IOException e) {
            LOG.warn("cannot lift the write limit of {}: {}", cgroup, e.toString());
        }
    }

    /** Writes the processes in the slow cgroup issued to the disk so far. */
    long writesServiced() {
        try {
            for (String line : Files.readAllLines(cgroup.resolve("blkio.throttle.io_serviced"))) {
                if (line.startsWith(device + " Write ")) {
                    return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot read {}: {}", cgroup, e.toString());
        }
        return 0;
    }

    @Override
    public synchronized void close() {
        try {
            for (String pid : Files.readAllLines(cgroup.resolve("cgroup.procs"))) {
                lift(Long.parseLong(pid.strip()));
            }
            Files.deleteIfExists(cgroup);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot remove cgroup {}: {}", cgroup, e.toString());
        }
        if (!root.equals(BLKIO)) {
            try {
                String out = TmpfsDisk.run(List.of("umount", root.toString()));
                if (out != null) {
                    LOG.warn("unmounting {}: {}", root, out.strip());
                }
            } catch (IOException e) {
                LOG.warn("cannot unmount {}: {}", root, e.getMessage());
            }
        }
        try {
            String out = TmpfsDisk.run(List.of("umount", "-l", mountPoint.toString()));
            if (out != null) {
                LOG.warn("unmounting {}: {}", mountPoint, out.strip());
            }
            Files.deleteIfExists(image);
        } catch (IOException e) {
            LOG.warn("cannot unmount {}: {}", mountPoint, e.getMessage());
        }
    }

    private static String output(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
