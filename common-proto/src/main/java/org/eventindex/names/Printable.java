package org.eventindex.names;

/** Makes untrusted input safe to echo in an error message: control and non-ASCII characters escaped, length capped. */
public final class Printable {
    private Printable() {
    }

    public static String of(String s, int maxChars) {
        String shown = s.length() <= maxChars ? s : s.substring(0, maxChars - 3) + "...";
        StringBuilder out = new StringBuilder(shown.length() + 8);
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.toString();
    }

    public static String of(char c) {
        return of(String.valueOf(c), 1);
    }
}
