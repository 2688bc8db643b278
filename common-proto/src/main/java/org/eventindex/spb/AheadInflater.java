package org.eventindex.spb;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The inflated bytes of a gzip stream, inflated on a thread of its own a few chunks ahead of the reader, so that on
 * two cores the inflate runs beside the checks that read its output instead of before each of them (decision 0071).
 * <p>
 * A fixed pool of {@link #CHUNKS} arrays circulates between the two threads: the inflating thread fills a free one and
 * queues it, the reader {@link #take takes} the queued ones in order, reads them in place (no copy, decision 0077) and
 * {@link #release gives each back} once it reads no byte of it any more; memory is bounded by the pool whatever the
 * stream. Each array holds {@code headroom} free bytes before the chunk's bytes, where the reader puts the bytes of the
 * previous chunk it has not consumed yet (the start of a message cut by the chunk's end), so that a message is always
 * in one array. Each chunk carries the compressed bytes the inflater had consumed when it was filled
 * ({@link #compressedBytes()}), for the reader's inflation-ratio check. Whatever ends the inflating thread (end of
 * stream, an {@link IOException} such as a {@code ZipException} or an {@code EOFException}, any other failure) reaches
 * the reader in order after the last bytes inflated before it, as the same exception, thrown by {@link #take}; the
 * reader therefore meets every fault of the stream at the offset where an inline reader meets it. {@link #close()}
 * stops the thread and closes the gzip stream.
 * <p>
 * One reader thread.
 */
final class AheadInflater implements Closeable {
    /** Bytes per chunk: large enough that handing a chunk over (a wake-up of the other thread) costs nothing. */
    static final int CHUNK_BYTES = 512 * 1024;
    /** Chunks in the pool: 2 MiB of heap and the headrooms. */
    static final int CHUNKS = 4;

    /** A filled chunk: {@code length} bytes from {@code headroom} in {@code bytes}. */
    record Chunk(byte[] bytes, int length) {
    }

    /** What the inflating thread queues: a chunk, or (with {@code failure} or {@code end}) the end of the stream. */
    private record Filled(Chunk chunk, long compressed, Throwable failure, boolean end) {
    }

    private final InputStream gzip;
    private final LongSupplier compressedCount;
    private final int headroom;
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(CHUNKS);
    // one more slot than chunks: the end (or failure) marker never waits for the reader
    private final BlockingQueue<Filled> filled = new ArrayBlockingQueue<>(CHUNKS + 1);
    private final Thread thread;

    // The reader's side (one thread).
    private Filled last;
    private long compressed;
    private boolean closed;
    private boolean failureMarked;

    /**
     * Starts inflating.
     *
     * @param gzip            the inflating stream (its header already read); closed by {@link #close()}
     * @param compressedCount the compressed bytes {@code gzip} has consumed so far, read on the inflating thread
     * @param headroom        free bytes before each chunk's bytes, for the reader
     * @param name            names the thread (the stream's source)
     */
    AheadInflater(InputStream gzip, LongSupplier compressedCount, int headroom, String name) {
        this.gzip = requireNonNull(gzip, "gzip is null");
        this.compressedCount = requireNonNull(compressedCount, "compressedCount is null");
        if (headroom < 0) {
            throw new IllegalArgumentException("headroom must not be negative: " + headroom);
        }
        this.headroom = headroom;
        for (int i = 0; i < CHUNKS; i++) {
            free.add(new byte[headroom + CHUNK_BYTES]);
        }
        this.thread = new Thread(this::inflate, "inflate " + requireNonNull(name, "name is null"));
        thread.setDaemon(true);
        thread.start();
    }

    private void inflate() {
        try {
            while (true) {
                byte[] chunk = free.take();
                int n = 0;
                int r = 0;
                Throwable failure = null;
                try {
                    while (n < CHUNK_BYTES && (r = gzip.read(chunk, headroom + n, CHUNK_BYTES - n)) >= 0) {
                        n += r;
                    }
                } catch (Throwable t) {
                    failure = t;
                }
                // the bytes inflated before a fault first, as an inline reader gets them before the fault
                if (n > 0) {
                    filled.put(new Filled(new Chunk(chunk, n), compressedCount.getAsLong(), null, false));
                } else {
                    free.add(chunk);
                }
                if (failure != null || r < 0) {
                    // the queue has room: the chunks in it come from the pool, and it holds one more
                    filled.put(new Filled(null, compressedCount.getAsLong(), failure, true));
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed by the reader: nothing is waiting for more
        }
    }

    /** Free bytes before each chunk's bytes in its array. */
    int headroom() {
        return headroom;
    }

    /** Compressed bytes consumed when the last chunk taken was inflated (the whole stream's once it ended). */
    long compressedBytes() {
        return compressed;
    }

    /**
     * The next chunk, to be given back with {@link #release} once none of its bytes is read any more; null at the end
     * of the stream.
     *
     * @throws IOException what ended the inflating thread, as it was thrown there
     */
    Chunk take() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
        if (last == null || !last.end) {
            try {
                last = filled.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for " + thread.getName());
            }
            compressed = last.compressed;
        }
        if (last.failure != null) {
            throw rethrow(last.failure);
        }
        return last.chunk;
    }

    /** Gives a taken chunk's array back to the inflating thread. */
    void release(Chunk chunk) {
        free.add(chunk.bytes);
    }

    /** The inflating thread's failure as the same exception, with where the reader met it attached. */
    private IOException rethrow(Throwable failure) {
        if (!failureMarked) {
            failureMarked = true;
            failure.addSuppressed(new Exception("rethrown to the reader of " + thread.getName()));
        }
        if (failure instanceof IOException io) {
            return io;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        return new IOException(thread.getName() + " failed: " + failure, failure);
    }

    /** Stops the inflating thread (waiting for it) and closes the gzip stream. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        thread.interrupt();
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        gzip.close();
    }
}
