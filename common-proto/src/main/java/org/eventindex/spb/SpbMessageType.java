package org.eventindex.spb;

/** Message types of an EI SPB file: the {@code type} in the {@code (type << 8) | msgver} word. */
public enum SpbMessageType {
    HEADER(1), TRAILER(2), BEGIN_GUID(3), END_GUID(4), TRIGGER_MENU(5), EVENT(6);

    /** The only message version the experiment writes. */
    public static final int MESSAGE_VERSION = 1;

    private final int code;

    SpbMessageType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    private static final SpbMessageType[] ALL = values();

    /** @return the type for a code, or null if the code is not a known type */
    public static SpbMessageType ofCode(int code) {
        // not values(): that copies the array, once per record read
        for (SpbMessageType t : ALL) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }
}
