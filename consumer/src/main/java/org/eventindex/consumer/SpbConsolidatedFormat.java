package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbWriter;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/** The consolidated file as an EI SPB file, readable by every existing SPB tool and by the Kudu loader. */
public final class SpbConsolidatedFormat implements ConsolidatedFormat {
    public static final String SUFFIX = ".ei.spb";

    @Override
    public String fileSuffix() {
        return SUFFIX;
    }

    @Override
    public ConsolidatedWriter open(OutputStream out) throws IOException {
        return new Writer(new SpbWriter(new KeepOpen(Objects.requireNonNull(out, "out is null"))));
    }

    private static final class Writer implements ConsolidatedWriter {
        private final SpbWriter spb;

        Writer(SpbWriter spb) {
            this.spb = spb;
        }

        @Override
        public void header(Header_p1 header) throws IOException {
            spb.header(header);
        }

        @Override
        public void beginGuid(BeginGUID_p1 begin) throws IOException {
            spb.beginGuid(begin);
        }

        @Override
        public void triggerMenu(TriggerMenu_p1 menu) throws IOException {
            spb.triggerMenu(menu);
        }

        @Override
        public void event(EIEvent_p1 event) throws IOException {
            spb.event(event);
        }

        @Override
        public void endGuid(EndGUID_p1 end) throws IOException {
            spb.endGuid(end.getEndProcTime());
        }

        @Override
        public void finish(long endProcTime) throws IOException {
            spb.finish(endProcTime);
        }

        @Override
        public long events() {
            return spb.events();
        }

        @Override
        public void close() throws IOException {
            spb.close();
        }
    }

    /** Lets the SPB writer close "its" stream while the committer still has to sync and rename it. */
    private static final class KeepOpen extends FilterOutputStream {
        KeepOpen(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
