package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A hand-written in-memory {@link ObjectFetcher} that counts opens and can inject faults. */
final class MemoryObjectFetcher implements ObjectFetcher {
    /** Runs when an object is opened, before any byte is served; may block or throw. */
    @FunctionalInterface
    interface OpenHook {
        void beforeOpen(S3ObjectUrl url, int openNo) throws IOException;
    }

    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> opens = new ConcurrentHashMap<>();
    private final Map<String, Integer> breakAfter = new ConcurrentHashMap<>();
    private final Map<String, Integer> endAfter = new ConcurrentHashMap<>();
    private final Map<String, Runnable> onFullyRead = new ConcurrentHashMap<>();
    private volatile OpenHook hook = (url, n) -> {
    };

    /** The URL of the test object named {@code name} (see {@link TestSpb#key}). */
    static S3ObjectUrl url(String name) {
        return new S3ObjectUrl("s3.test", 7480, "eventindex", TestSpb.key(name));
    }

    private final Map<String, String> sha256 = new ConcurrentHashMap<>();

    /** Stores the object with the producer's checksum metadata: its real SHA-256. */
    void put(String key, byte[] bytes) {
        objects.put(url(key).toString(), bytes);
        try {
            sha256.put(url(key).toString(), java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(bytes)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Replaces the checksum metadata of {@code key} (null: none). */
    void sha256(String key, String hex) {
        if (hex == null) {
            sha256.remove(url(key).toString());
        } else {
            sha256.put(url(key).toString(), hex);
        }
    }

    @Override
    public Opened openWithChecksum(S3ObjectUrl url) throws IOException {
        InputStream in = open(url);
        return new Opened(in, sha256.get(url.toString()), objects.get(url.toString()).length);
    }

    int opens(String key) {
        AtomicInteger n = opens.get(url(key).toString());
        return n == null ? 0 : n.get();
    }

    /** The first open of {@code key} fails with an I/O error after {@code bytes} bytes. */
    void breakFirstReadAfter(String key, int bytes) {
        breakAfter.put(url(key).toString(), bytes);
    }

    /** The first open of {@code key} ends (EOF, no error) after {@code bytes} bytes, its full size announced. */
    void endFirstReadAfter(String key, int bytes) {
        endAfter.put(url(key).toString(), bytes);
    }

    /** Runs {@code action} when a stream of {@code key} that served every byte is closed. */
    void onFullyRead(String key, Runnable action) {
        onFullyRead.put(url(key).toString(), action);
    }

    void hook(OpenHook h) {
        this.hook = h;
    }

    @Override
    public InputStream open(S3ObjectUrl url) throws IOException {
        String k = url.toString();
        int n = opens.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
        hook.beforeOpen(url, n);
        byte[] bytes = objects.get(k);
        if (bytes == null) {
            throw new FileNotFoundException("object " + url + " does not exist (NoSuchKey)");
        }
        Integer limit = n == 1 ? breakAfter.get(k) : null;
        Integer end = n == 1 ? endAfter.get(k) : null;
        Runnable done = onFullyRead.get(k);
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            private int served;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (end != null && served + len > end) {
                    if (served >= end) {
                        return -1;
                    }
                    len = end - served;
                }
                if (limit != null && served + len > limit) {
                    if (served >= limit) {
                        throw new IOException("connection reset (injected) after " + served + " bytes");
                    }
                    len = limit - served;
                }
                int r = super.read(b, off, len);
                if (r > 0) {
                    served += r;
                }
                return r;
            }

            @Override
            public void close() throws IOException {
                super.close();
                if (done != null && served == bytes.length) {
                    done.run();
                }
            }
        };
    }
}
