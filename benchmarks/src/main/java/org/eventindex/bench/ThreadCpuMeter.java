package org.eventindex.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of the JVM's threads while a benchmark path runs, grouped by thread role (consumer fetch threads, the
 * handler thread, the Parquet encoding threads, HDFS client and datanode, S3 server...). Threads come and go (a fetch pool per
 * dataset), so a background thread polls every thread's CPU time and keeps the last value seen per thread; the CPU a
 * thread spends after its last poll and before it dies is lost (at most one period).
 * <p>
 * The JVM's own threads (JIT compilers, GC workers, VM thread) are not Java threads: on Linux their CPU is read from
 * {@code /proc/self/task} (10 ms ticks), so that JIT compilation and GC are reported apart instead of as one rest.
 */
final class ThreadCpuMeter implements AutoCloseable {
    private static final long PERIOD_MILLIS = 100;
    static final String VM_JIT = "JVM JIT compiler threads";
    static final String VM_GC = "JVM GC + VM threads";
    private static final String NOT_MEASURED = "";
    private final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final Map<Long, long[]> firstAndLast = new HashMap<>();
    /** Role per thread key (Java thread id, or -tid for a JVM thread read from /proc). */
    private final Map<Long, String> roles = new HashMap<>();
    /** /proc tasks already looked at: their role, or NOT_MEASURED for threads that are not JIT or GC threads. */
    private final Map<String, String> vmTasks = new HashMap<>();
    /** Per poll: elapsed nanoseconds and the CPU nanoseconds of each role so far, for {@link #timeline}. */
    private final List<Snapshot> snapshots = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private final Thread poller;
    private volatile boolean running = true;

    ThreadCpuMeter() {
        poll();
        poller = new Thread(() -> {
            while (running) {
                poll();
                try {
                    Thread.sleep(PERIOD_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-cpu-meter");
        poller.setDaemon(true);
        poller.start();
    }

    private synchronized void poll() {
        long[] ids = mx.getAllThreadIds();
        long[] cpus = mx.getThreadCpuTime(ids);
        long[] allocs = mx.getThreadAllocatedBytes(ids);
        for (int i = 0; i < ids.length; i++) {
            long cpu = cpus[i];
            long alloc = allocs[i];
            if (cpu < 0 || !knowRole(ids[i])) {
                continue;
            }
            long[] fl = firstAndLast.computeIfAbsent(ids[i], id -> new long[]{cpu, cpu, alloc, alloc});
            fl[1] = cpu;
            fl[3] = alloc;
        }
        pollVmThreads();
        snapshots.add(new Snapshot(System.nanoTime() - startNanos, cpuByRole()));
    }

    /**
     * Finds the role of a Java thread the first time it is seen: the meter polls every 100 ms during the measured
     * runs, and its own CPU and JIT count as the run's, so it does not ask for thread names or match them again.
     */
    private boolean knowRole(long id) {
        if (roles.containsKey(id)) {
            return true;
        }
        ThreadInfo info = mx.getThreadInfo(id);
        if (info == null) {
            return false;
        }
        roles.put(id, role(info.getThreadName()));
        return true;
    }

    private record Snapshot(long elapsedNanos, Map<String, Long> cpuByRole) {
    }

    private Map<String, Long> cpuByRole() {
        Map<String, Long> byRole = new HashMap<>();
        for (Map.Entry<Long, long[]> e : firstAndLast.entrySet()) {
            long[] fl = e.getValue();
            byRole.merge(roles.get(e.getKey()), fl[1] - fl[0], Long::sum);
        }
        return byRole;
    }

    /**
     * Cores busy per role in consecutive intervals of {@code bucketMillis} (after {@link #stop}): where the run
     * waits shows as intervals with less than all cores busy. One line per interval, roles in {@code roles} order,
     * the rest summed as "other".
     *
     * @param roles role -> column label (in column order)
     */
    synchronized List<String> timeline(long bucketMillis, Map<String, String> roles) {
        List<String> lines = new ArrayList<>();
        StringBuilder head = new StringBuilder(String.format("%8s %6s", "until", "all"));
        for (String label : roles.values()) {
            head.append(String.format(" %10s", label));
        }
        lines.add(head.append(String.format(" %10s", "other")).toString());
        long bucket = bucketMillis * 1_000_000L;
        Snapshot from = snapshots.get(0);
        for (int i = 1; i < snapshots.size(); i++) {
            Snapshot to = snapshots.get(i);
            boolean last = i == snapshots.size() - 1;
            if (to.elapsedNanos - from.elapsedNanos < bucket && !last) {
                continue;
            }
            double wall = to.elapsedNanos - from.elapsedNanos;
            double all = 0;
            StringBuilder line = new StringBuilder();
            double known = 0;
            for (String r : roles.keySet()) {
                double cores = (to.cpuByRole.getOrDefault(r, 0L) - from.cpuByRole.getOrDefault(r, 0L)) / wall;
                known += cores;
                line.append(String.format(" %10.2f", cores));
            }
            for (String r : to.cpuByRole.keySet()) {
                all += (to.cpuByRole.get(r) - from.cpuByRole.getOrDefault(r, 0L)) / wall;
            }
            lines.add(String.format("%7.1fs %6.2f", to.elapsedNanos / 1e9, all) + line
                    + String.format(" %10.2f", all - known));
            from = to;
        }
        return lines;
    }

    /** JIT and GC threads from /proc (Linux only; elsewhere they stay in the rest). Keys are -tid. */
    private void pollVmThreads() {
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return;
        }
        for (java.io.File t : tasks) {
            try {
                String role = vmTasks.get(t.getName());
                if (role == null) {
                    String comm = java.nio.file.Files.readString(t.toPath().resolve("comm")).trim();
                    role = vmRole(comm);
                    vmTasks.put(t.getName(), role == null ? NOT_MEASURED : role);
                }
                if (role.isEmpty()) {
                    continue;
                }
                String stat = java.nio.file.Files.readString(t.toPath().resolve("stat"));
                // utime + stime (fields 14 and 15 of stat) in ticks of 10 ms
                int after = stat.lastIndexOf(')') + 2;
                long cpu = (statField(stat, after, 11) + statField(stat, after, 12)) * 10_000_000L;
                long key = -Long.parseLong(t.getName());
                long[] fl = firstAndLast.computeIfAbsent(key, id -> new long[]{cpu, cpu, 0, 0});
                fl[1] = cpu;
                roles.putIfAbsent(key, role);
            } catch (java.io.IOException | RuntimeException e) {
                // the thread ended between listing and reading
            }
        }
    }

    /**
     * The number that is field {@code index} (from 0) of the space-separated fields starting at {@code from}. Not
     * String.split: in the meter's thread its C2 compilation was thrown away and redone (~0.2 s of JIT each time)
     * during the measured runs, CPU that showed as the consolidation's.
     */
    static long statField(String stat, int from, int index) {
        int start = from;
        for (int i = 0; i < index; i++) {
            start = stat.indexOf(' ', start) + 1;
            if (start == 0) {
                throw new IllegalArgumentException("stat has no field " + index + ": " + stat);
            }
        }
        int end = stat.indexOf(' ', start);
        return Long.parseLong(stat.substring(start, end < 0 ? stat.length() : end).trim());
    }

    private static String vmRole(String comm) {
        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
            return VM_JIT;
        }
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("VM Thread")) {
            return VM_GC;
        }
        return null;
    }

    /** Bytes allocated per thread role (after {@link #stop}). */
    synchronized Map<String, Long> allocated() {
        Map<String, Long> byRole = new TreeMap<>();
        for (Map.Entry<Long, long[]> e : firstAndLast.entrySet()) {
            long[] fl = e.getValue();
            if (fl[3] > fl[2]) {
                byRole.merge(roles.get(e.getKey()), fl[3] - fl[2], Long::sum);
            }
        }
        return byRole;
    }

    /** Stops polling; returns CPU seconds per thread role, most first. */
    synchronized Map<String, Double> stop() throws InterruptedException {
        running = false;
        poller.interrupt();
        poller.join();
        poll();
        Map<String, Double> byRole = new TreeMap<>();
        for (Map.Entry<Long, long[]> e : firstAndLast.entrySet()) {
            long[] fl = e.getValue();
            if (fl[1] > fl[0]) {
                byRole.merge(roles.get(e.getKey()), (fl[1] - fl[0]) / 1e9, Double::sum);
            }
        }
        return byRole;
    }

    static String role(String name) {
        if (name.equals(VM_JIT) || name.equals(VM_GC)) {
            return name;
        }
        if (name.startsWith("consumer-fetch")) {
            return "consumer fetch threads";
        }
        if (name.startsWith("parquet-encode")) {
            return "Parquet second encoding thread";
        }
        if (name.startsWith("parquet-flush")) {
            return "Parquet row group writer";
        }
        if (name.startsWith("consumer-") || name.equals("main")) {
            return "handler (main) + other consumer";
        }
        if (name.startsWith("kudu-load-")) {
            return "Kudu loader session threads";
        }
        if (name.startsWith("trigger-pairs-") || name.startsWith("kudu-nio")) {
            return name.startsWith("kudu-nio") ? "Kudu client I/O" : "Kudu loader trigger pairs";
        }
        if (name.startsWith("DataXceiver") || name.contains("DataXceiver") || name.startsWith("PacketResponder")
                || name.contains("BlockReceiver")) {
            return "HDFS datanode";
        }
        if (name.startsWith("DataStreamer") || isNumberedThread(name) || name.startsWith("ResponseProcessor")) {
            return "HDFS client streamer (Thread-N)";
        }
        if (name.contains("Jetty") || name.contains("S3Proxy") || name.startsWith("qtp")) {
            return "S3 server";
        }
        if (name.contains("Compiler")) {
            return "JIT compiler";
        }
        if (name.startsWith("G1") || name.startsWith("GC")) {
            return "GC";
        }
        if (name.equals("bench-cpu-meter")) {
            return "benchmark's CPU meter";
        }
        return "other";
    }

    /** "Thread-N", the name of an unnamed thread (the HDFS client's streamer). */
    private static boolean isNumberedThread(String name) {
        if (!name.startsWith("Thread-") || name.length() == "Thread-".length()) {
            return false;
        }
        for (int i = "Thread-".length(); i < name.length(); i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws InterruptedException {
        if (running) {
            stop();
        }
    }
}
