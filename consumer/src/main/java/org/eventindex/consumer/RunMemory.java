package org.eventindex.consumer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Memory in which the fetch threads keep sorted runs instead of writing them to the spool dir, up to a budget of
 * {@code budgetBytes} for the consumer: blocks of {@value #BLOCK} bytes, allocated on first use and then reused from
 * run to run within a dataset; {@link #releaseFree} drops them once the dataset's file is written, so that the Kudu
 * load that follows in the same heap has that memory (decision 0036; they used to be kept for the next dataset). A run
 * takes all the blocks it needs before it is written, or none and goes to disk; so runs that do not fit, and
 * datasets bigger than the budget, still complete, with their other runs on disk. Thread-safe.
 */
final class RunMemory {
    /**
     * Bytes per block: a run wastes less than one at its end, and blocks are ordinary objects for G1 (under half its
     * smallest region).
     */
    static final int BLOCK = 64 * 1024;

    private final long budgetBlocks;
    /** Blocks given back, kept for the next runs. */
    private final ArrayDeque<byte[]> free = new ArrayDeque<>();
    /** Blocks held by runs; with the free ones, never more than budgetBlocks. */
    private long inUse;

    RunMemory(long budgetBytes) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("run memory must not be negative: " + budgetBytes);
        }
        this.budgetBlocks = budgetBytes / BLOCK;
    }

    /** Bytes held by runs now. */
    synchronized long bytesInUse() {
        return inUse * BLOCK;
    }

    /**
     * Blocks for a run of {@code bytes} bytes, to be written through {@link InMemory#output()}; or null when the
     * budget does not have them free (the run then goes to disk).
     */
    InMemory take(long bytes) {
        long n = (bytes + BLOCK - 1) / BLOCK;
        byte[][] blocks;
        synchronized (this) {
            if (n > budgetBlocks - inUse) {
                return null;
            }
            inUse += n;
            blocks = new byte[(int) n][];
            int i = 0;
            while (i < n && !free.isEmpty()) {
                blocks[i++] = free.pop();
            }
        }
        // new blocks are allocated outside the lock
        for (int i = 0; i < n; i++) {
            if (blocks[i] == null) {
                blocks[i] = new byte[BLOCK];
            }
        }
        return new InMemory(this, blocks, bytes);
    }

    /** Drops the blocks no run holds (they are collected); the next runs allocate new ones. */
    synchronized void releaseFree() {
        free.clear();
    }

    /** Blocks allocated and not held by a run, kept for the next runs. */
    synchronized int freeBlocks() {
        return free.size();
    }

    private synchronized void give(byte[][] blocks) {
        for (byte[] b : blocks) {
            free.push(b);
        }
        inUse -= blocks.length;
    }

    /**
     * A run held in blocks of a {@link RunMemory}: written once, through {@link #output()}, then read. Writes, reads
     * and {@link #delete} hold the run's lock, so blocks are given back only when no write or read is copying them.
     */
    static final class InMemory implements SortedRun {
        private final RunMemory owner;
        private byte[][] blocks;
        /** Bytes taken for the run, then ({@link #trim}) bytes written. */
        private long length;
        private long written;

        private InMemory(RunMemory owner, byte[][] blocks, long length) {
            this.owner = owner;
            this.blocks = blocks;
            this.length = length;
        }

        /** Writes the run's bytes, exactly its length in all. */
        OutputStream output() {
            return new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[]{(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    put(b, off, len);
                }
            };
        }

        /** Holds the run's lock, so that a concurrent {@link #delete} never gives away a block being written. */
        private synchronized void put(byte[] b, int off, int len) throws IOException {
            if (blocks == null) {
                throw new IOException(this + " was deleted");
            }
            if (len > length - written) {
                throw new IOException(this + ": writing " + len + " bytes more after " + written);
            }
            while (len > 0) {
                int at = (int) (written % BLOCK);
                int n = Math.min(len, BLOCK - at);
                System.arraycopy(b, off, blocks[(int) (written / BLOCK)], at, n);
                written += n;
                off += n;
                len -= n;
            }
        }

        /**
         * Ends the writing of a run shorter than the bytes taken for it: the run is what was written, and the blocks
         * it does not use are given back.
         */
        synchronized void trim() {
            if (blocks == null) {
                return;
            }
            int need = (int) ((written + BLOCK - 1) / BLOCK);
            if (need < blocks.length) {
                owner.give(Arrays.copyOfRange(blocks, need, blocks.length));
                blocks = Arrays.copyOf(blocks, need);
            }
            length = written;
        }

        /**
         * Opens the run for reading. Each read takes the run's lock (once per call, not per byte), so a
         * {@link #delete} while a stream is open makes its next read fail rather than return the bytes of whichever
         * run gets the blocks next.
         */
        @Override
        public synchronized InputStream open() throws IOException {
            if (blocks == null) {
                throw new IOException(this + " was deleted");
            }
            if (written != length) {
                throw new IOException(this + " has only " + written + " written");
            }
            return new BulkInputStream() {
                private long read;

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    synchronized (InMemory.this) {
                        if (blocks == null) {
                            throw new IOException(InMemory.this + " was deleted while being read, after " + read
                                    + " bytes");
                        }
                        if (read == length) {
                            return len == 0 ? 0 : -1;
                        }
                        int at = (int) (read % BLOCK);
                        int n = (int) Math.min(Math.min(len, BLOCK - at), length - read);
                        System.arraycopy(blocks[(int) (read / BLOCK)], at, b, off, n);
                        read += n;
                        return n;
                    }
                }
            };
        }

        @Override
        public synchronized void delete() {
            if (blocks != null) {
                owner.give(blocks);
                blocks = null;
            }
        }

        /** Bytes the run holds. */
        long bytes() {
            return length;
        }

        @Override
        public String toString() {
            return "in-memory run of " + length + " bytes";
        }
    }
}
