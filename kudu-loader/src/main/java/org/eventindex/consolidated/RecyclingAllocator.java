package org.eventindex.consolidated;

import org.apache.parquet.bytes.ByteBufferAllocator;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * A heap allocator for one Parquet writer that keeps the buffers Parquet releases and hands them out again. parquet-mr
 * releases the slabs of every column's page buffers after each page and allocates them again for the next one, which
 * made the page buffers the largest source of garbage when consolidating (about 1.4 KB per event). parquet-mr releases
 * only buffers it allocated, once (its own tests check that with {@code TrackingByteBufferAllocator}); at most
 * {@code maxPooledBytes} are kept. Not shared between writers.
 */
final class RecyclingAllocator implements ByteBufferAllocator {
    private final long maxPooledBytes;
    private final Map<Integer, ArrayDeque<ByteBuffer>> free = new HashMap<>();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] powers = new ArrayDeque[32];
    private long pooledBytes;

    RecyclingAllocator(long maxPooledBytes) {
        this.maxPooledBytes = maxPooledBytes;
    }

    @Override
    public synchronized ByteBuffer allocate(int size) {
        ArrayDeque<ByteBuffer> q = queue(size, false);
        ByteBuffer b = q == null ? null : q.poll();
        if (b != null) {
            pooledBytes -= size;
            b.clear();
        } else {
            b = ByteBuffer.allocate(size);
        }
        return b;
    }

    @Override
    public synchronized void release(ByteBuffer b) {
        if (b.isDirect() || b.isReadOnly() || !b.hasArray()) {
            return;
        }
        int size = b.capacity();
        if (pooledBytes + size > maxPooledBytes) {
            return;
        }
        queue(size, true).push(b);
        pooledBytes += size;
    }

    /**
     * The free buffers of one size. Parquet's slabs are mostly powers of two, which a {@code HashMap<Integer, ...>}
     * puts in one bucket (their low bits are all zero); those have an array slot per power.
     */
    private ArrayDeque<ByteBuffer> queue(int size, boolean create) {
        if (Integer.bitCount(size) == 1) {
            int log = Integer.numberOfTrailingZeros(size);
            if (powers[log] == null && create) {
                powers[log] = new ArrayDeque<>();
            }
            return powers[log];
        }
        return create ? free.computeIfAbsent(size, s -> new ArrayDeque<>()) : free.get(size);
    }

    @Override
    public boolean isDirect() {
        return false;
    }

    /** Bytes kept for reuse. */
    synchronized long pooledBytes() {
        return pooledBytes;
    }
}
