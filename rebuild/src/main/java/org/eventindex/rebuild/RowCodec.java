package org.eventindex.rebuild;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * A Kudu row as bytes and back, for one table's schema: how a decided row travels from the task that decided it to
 * the task that writes its tablet (Spark's shuffle, docs/decisions/0076). Each column is one tag byte (not set, NULL,
 * a value) and its value; the decoded row sets exactly the columns the encoded one set, to the same values, so Kudu
 * stores the same row. Not thread-safe (one buffer, reused).
 */
final class RowCodec {
    private static final byte UNSET = 0;
    private static final byte NULL = 1;
    private static final byte VALUE = 2;

    private final String table;
    private final Type[] types;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(1024);
    private final DataOutputStream out = new DataOutputStream(buffer);

    /** @throws IllegalArgumentException when a column has a type the codec does not carry (naming it) */
    RowCodec(String table, Schema schema) {
        this.table = requireNonNull(table, "table is null");
        requireNonNull(schema, "schema is null");
        types = new Type[schema.getColumnCount()];
        for (int i = 0; i < types.length; i++) {
            ColumnSchema c = schema.getColumnByIndex(i);
            switch (c.getType()) {
                case INT8, INT16, INT32, INT64, UNIXTIME_MICROS, BOOL, FLOAT, DOUBLE, STRING, VARCHAR, BINARY ->
                        types[i] = c.getType();
                default -> throw new IllegalArgumentException("column " + c.getName() + " of Kudu table " + table
                        + " has type " + c.getType() + ", which a rebuild routed by tablet cannot carry");
            }
        }
    }

    byte[] encode(PartialRow row) {
        buffer.reset();
        try {
            for (int i = 0; i < types.length; i++) {
                if (!row.isSet(i)) {
                    out.writeByte(UNSET);
                } else if (row.isNull(i)) {
                    out.writeByte(NULL);
                } else {
                    out.writeByte(VALUE);
                    write(row, i);
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding a row of " + table + " in memory", e);
        }
        return buffer.toByteArray();
    }

    private void write(PartialRow row, int i) throws IOException {
        switch (types[i]) {
            case INT8 -> out.writeByte(row.getByte(i));
            case INT16 -> out.writeShort(row.getShort(i));
            case INT32 -> out.writeInt(row.getInt(i));
            case INT64, UNIXTIME_MICROS -> out.writeLong(row.getLong(i));
            case BOOL -> out.writeBoolean(row.getBoolean(i));
            case FLOAT -> out.writeFloat(row.getFloat(i));
            case DOUBLE -> out.writeDouble(row.getDouble(i));
            case STRING, VARCHAR -> bytes(row.getString(i).getBytes(StandardCharsets.UTF_8));
            case BINARY -> bytes(row.getBinaryCopy(i));
            default -> throw new IllegalStateException("type " + types[i]);
        }
    }

    private void bytes(byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    /** Sets {@code into}'s columns (a fresh row of the same table) as {@code encoded}'s. */
    void decode(byte[] encoded, PartialRow into) {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
        try {
            for (int i = 0; i < types.length; i++) {
                byte tag = in.readByte();
                if (tag == NULL) {
                    into.setNull(i);
                } else if (tag == VALUE) {
                    read(in, into, i);
                } else if (tag != UNSET) {
                    throw new IllegalArgumentException("a row of " + table + " with tag " + tag + " at column " + i
                            + ": not encoded by this codec");
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("a row of " + table + " cut short or of another schema: " + e, e);
        }
    }

    private void read(DataInputStream in, PartialRow into, int i) throws IOException {
        switch (types[i]) {
            case INT8 -> into.addByte(i, in.readByte());
            case INT16 -> into.addShort(i, in.readShort());
            case INT32 -> into.addInt(i, in.readInt());
            case INT64, UNIXTIME_MICROS -> into.addLong(i, in.readLong());
            case BOOL -> into.addBoolean(i, in.readBoolean());
            case FLOAT -> into.addFloat(i, in.readFloat());
            case DOUBLE -> into.addDouble(i, in.readDouble());
            case STRING -> into.addStringUtf8(i, bytes(in));
            case VARCHAR -> into.addVarchar(i, new String(bytes(in), StandardCharsets.UTF_8));
            case BINARY -> into.addBinary(i, bytes(in));
            default -> throw new IllegalStateException("type " + types[i]);
        }
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }
}
