package org.eventindex.consolidated;

import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The content checksum of a consolidated file: SHA-256 over, for each row in file order, the event's deterministic
 * protobuf serialization and its file GUID, each preceded by its length (4 bytes big-endian). The writer stores it in
 * the footer; a reader recomputes it from the rows it decoded and compares.
 */
public final class RowDigest {
    private final MessageDigest sha;
    private final byte[] len = new byte[4];
    private static final int GUID_CACHE_MAX = 16_384;
    private final java.util.HashMap<String, byte[]> guids = new java.util.HashMap<>();

    public RowDigest() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    public void add(EIEvent_p1 event, String guid) {
        add(event.toByteArray(), guid);
    }

    /** @param serialized the event's deterministic serialization ({@code toByteArray()} of a parsed event) */
    public void add(byte[] serialized, String guid) {
        byte[] g = guid.getBytes(StandardCharsets.UTF_8);
        add(serialized, 0, serialized.length);
        add(g, 0, g.length);
    }

    /**
     * @param serialized the event's deterministic serialization in {@code serialized[0, length)}
     * @param guid       the file GUID as UTF-8
     */
    public void add(byte[] serialized, int length, byte[] guid) {
        add(serialized, 0, length);
        add(guid, 0, guid.length);
    }

    /**
     * @param serialized the event's deterministic serialization in {@code serialized[off, off + length)}
     * @param guid       the file GUID
     */
    public void add(byte[] serialized, int off, int length, String guid) {
        add(serialized, off, length);
        byte[] g = guids.get(guid);
        if (g == null) {
            g = guid.getBytes(StandardCharsets.UTF_8);
            if (guids.size() >= GUID_CACHE_MAX) {
                guids.clear();
            }
            guids.put(guid, g);
        }
        add(g, 0, g.length);
    }

    private void add(byte[] b, int off, int length) {
        len[0] = (byte) (length >>> 24);
        len[1] = (byte) (length >>> 16);
        len[2] = (byte) (length >>> 8);
        len[3] = (byte) length;
        sha.update(len);
        sha.update(b, off, length);
    }

    public String hex() {
        return HexFormat.of().formatHex(sha.digest());
    }
}
