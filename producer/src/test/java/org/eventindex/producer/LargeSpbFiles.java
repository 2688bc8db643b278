package org.eventindex.producer;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.SpbFixtures;
import org.eventindex.spb.SpbMessageType;
import org.eventindex.spb.SpbReader;

/**
 * Writes a valid SPB file of a given size quickly: gzip with stored (level 0) deflate blocks, so the file is as
 * large as its content and writing is I/O bound (~1 GB in seconds), with events carrying long provenance tokens.
 * The producer cannot tell: it validates, digests and uploads the bytes as for any SPB file.
 */
final class LargeSpbFiles {
    /** Long provenance tokens, as many and as long as {@link org.eventindex.spb.SpbContentLimits} allows. */
    private static final int TOKEN_CHARS = org.eventindex.spb.SpbContentLimits.TOKEN_BYTES;
    private static final int TOKENS = org.eventindex.spb.SpbContentLimits.TOKENS_PER_EVENT - 1;

    private LargeSpbFiles() {
    }

    /** @return the number of events written (one input file, run SpbFixtures.RUN, events 1..n) */
    static long write(Path file, long minBytes) throws IOException {
        // a POOL token of TOKEN_CHARS bytes (the content rules check every token), its container filled
        String filler = SpbFixtures.token(TOKEN_CHARS);
        CRC32 crc = new CRC32();
        long plainBytes = 0;
        long events = 0;
        try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            raw.write(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
            Deflater deflater = new Deflater(Deflater.NO_COMPRESSION, true);
            DeflaterOutputStream deflate = new DeflaterOutputStream(raw, deflater, 1 << 16) {
                @Override
                public void close() throws IOException {
                    finish(); // the gzip trailer follows on the same stream
                }
            };
            Framer out = new Framer(deflate, crc);
            out.u32(SpbReader.MAGIC).u32(SpbReader.FILE_VERSION);
            out.message(SpbMessageType.HEADER, SpbFixtures.header().toByteArray());
            out.message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A).toByteArray());
            while (out.bytes < minBytes) {
                events++;
                EIEvent_p1.Builder event = SpbFixtures.event(SpbFixtures.RUN, events).toBuilder();
                for (int t = 0; t < TOKENS; t++) {
                    event.addEitoken(EItoken_p1.newBuilder().setName("StreamRAW" + t).setToken(filler));
                }
                out.message(SpbMessageType.EVENT, event.build().toByteArray());
            }
            out.message(SpbMessageType.END_GUID, SpbFixtures.end((int) events).toByteArray());
            out.message(SpbMessageType.TRAILER, SpbFixtures.trailer((int) events, 1).toByteArray());
            deflate.close();
            deflater.end();
            plainBytes = out.bytes;
            writeIntLE(raw, (int) crc.getValue());
            writeIntLE(raw, (int) plainBytes);
        }
        return events;
    }

    private static void writeIntLE(OutputStream out, int v) throws IOException {
        out.write(v);
        out.write(v >>> 8);
        out.write(v >>> 16);
        out.write(v >>> 24);
    }

    private static final class Framer {
        private final OutputStream out;
        private final CRC32 crc;
        private final byte[] word = new byte[4];
        long bytes;

        Framer(OutputStream out, CRC32 crc) {
            this.out = out;
            this.crc = crc;
        }

        Framer u32(int v) throws IOException {
            word[0] = (byte) v;
            word[1] = (byte) (v >>> 8);
            word[2] = (byte) (v >>> 16);
            word[3] = (byte) (v >>> 24);
            return write(word);
        }

        Framer message(SpbMessageType type, byte[] body) throws IOException {
            return u32(type.code() << 8 | 1).u32(body.length).write(body);
        }

        private Framer write(byte[] b) throws IOException {
            out.write(b);
            crc.update(b);
            bytes += b.length;
            return this;
        }
    }
}
