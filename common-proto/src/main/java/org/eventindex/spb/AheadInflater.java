package org.eventindex.spb;

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
 * A fixed pool of {@link #CHUNKS} arrays of {@link #CHUNK_BYTES} circulates between the two threads: the inflating
 * thread fills a free one and queues it, the reader copies from the queued ones in order and gives each back when it
 * has read it all; memory is bounded by the pool whatever the stream. Each chunk carries the compressed bytes the
 * inflater had consumed when it was filled ({@link #compressedBytes()}), so that the reader's inflation-ratio check
 * sees the same counts as when it inflated itself. Whatever ends the inflating thread (end of stream, an
 * {@link IOException} such as a {@code ZipException} or an {@code EOFException}, any other failure) reaches the reader
 * in order after the last bytes inflated before it, as the same exception, thrown by {@link #read}; the reader therefore
 * meets every fault of the stream at the offset where it met it before. {@link #close()} stops the thread and closes the
 * gzip stream.
 * <p>
 * One reader thread; not for general use (no mark, no skip beyond {@link InputStream}'s).
 */
final class AheadInflater extends InputStream {
    /** Bytes per chunk: large enough that handing a chunk over (a wake-up of the other thread) costs nothing. */
    static final int CHUNK_BYTES = 512 * 1024;
    /** Chunks in the pool: 2 MiB of heap. */
    static final int CHUNKS = 4;

    /** A filled chunk, or (with {@code failure} or {@code end}) the end of the stream. */
    private record Chunk(byte[] bytes, int length, long compressed, Throwable failure, boolean end) {
    }

    private final InputStream gzip;
    private final LongSupplier compressedCount;
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(CHUNKS);
    // one more slot than chunks: the end (or failure) marker never waits for the reader
    private final BlockingQueue<Chunk> filled = new ArrayBlockingQueue<>(CHUNKS + 1);
    private final Thread thread;

    // The reader's side (one thread).
    private Chunk current;
    private int pos;
    private long compressed;
    private boolean closed;
    private boolean failureMarked;

    /**
     * Starts inflating.
     *
     * @param gzip            the inflating stream (its header already read); closed by {@link #close()}
     * @param compressedCount the compressed bytes {@code gzip} has consumed so far, read on the inflating thread
     * @param name            names the thread (the stream's source)
     */
    AheadInflater(InputStream gzip, LongSupplier compressedCount, String name) {
        this.gzip = requireNonNull(gzip, "gzip is null");
        this.compressedCount = requireNonNull(compressedCount, "compressedCount is null");
        for (int i = 0; i < CHUNKS; i++) {
            free.add(new byte[CHUNK_BYTES]);
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
                    while (n < chunk.length && (r = gzip.read(chunk, n, chunk.length - n)) >= 0) {
                        n += r;
                    }
                } catch (Throwable t) {
                    failure = t;
                }
                // the bytes inflated before a fault first, as an inline reader gets them before the fault
                if (n > 0) {
                    filled.put(new Chunk(chunk, n, compressedCount.getAsLong(), null, false));
                }
                if (failure != null || r < 0) {
                    // the queue has room: the chunks in it come from the pool, and it holds one more
                    filled.put(new Chunk(null, 0, compressedCount.getAsLong(), failure, true));
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed by the reader: nothing is waiting for more
        }
    }

    /** Compressed bytes consumed when the chunk being read was inflated (the whole stream's once it ended). */
    long compressedBytes() {
        return compressed;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] into, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (closed) {
            throw new IOException("stream closed");
        }
        if (current == null || (!current.end && pos == current.length)) {
            next();
        }
        if (current.end) {
            if (current.failure != null) {
                throw rethrow(current.failure);
            }
            return -1;
        }
        int n = Math.min(len, current.length - pos);
        System.arraycopy(current.bytes, pos, into, off, n);
        pos += n;
        return n;
    }

    private void next() throws IOException {
        if (current != null && current.bytes != null) {
            free.add(current.bytes);
        }
        try {
            current = filled.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + thread.getName());
        }
        compressed = current.compressed;
        pos = 0;
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
