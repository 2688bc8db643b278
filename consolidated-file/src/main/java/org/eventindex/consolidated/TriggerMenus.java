package org.eventindex.consolidated;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The distinct trigger menus of a consolidated file, each stored once in its footer ({@link ConsolidatedMetadata#menus()})
 * and referred to by index from every input file that used it. Real datasets have a handful of menus repeated in
 * every file; their size is bounded so that the footer stays far below what Parquet readers accept (parquet-mr and
 * Impala refuse footers of about 100 MB).
 */
public final class TriggerMenus {
    /** Characters of menu strings, over the distinct menus, that one consolidated file may hold. */
    public static final long MAX_CHARS = 32L << 20;

    private final String dataset;
    private final Map<ConsolidatedMetadata.MenuInfo, Integer> index = new HashMap<>();
    private final List<ConsolidatedMetadata.MenuInfo> menus = new ArrayList<>();
    private long chars;

    /** @param dataset names the dataset in errors */
    public TriggerMenus(String dataset) {
        this.dataset = dataset;
    }

    /** A consolidated file would hold more than it may: a hostile or broken input, refused for good. */
    public static final class LimitException extends IOException implements org.eventindex.EventIndexFailure {
        private static final long serialVersionUID = 1L;

        LimitException(String message) {
            super(message);
        }

        @Override
        public Kind kind() {
            return Kind.FATAL;
        }
    }

    /**
     * @return the menu's index in {@link #list()}, the same for every equal menu
     * @throws LimitException naming the dataset when the distinct menus would exceed {@link #MAX_CHARS}
     */
    public int add(ConsolidatedMetadata.MenuInfo menu) throws LimitException {
        Integer at = index.get(menu);
        if (at != null) {
            return at;
        }
        long size = length(menu.l1Menu()) + length(menu.l2Menu()) + length(menu.efMenu()) + length(menu.hltMenu());
        if (chars + size > MAX_CHARS) {
            throw new LimitException("dataset " + dataset + ": its distinct trigger menus hold more than " + MAX_CHARS
                    + " characters (" + (menus.size() + 1) + " menus, " + (chars + size) + " characters); a"
                    + " consolidated file's footer may not");
        }
        chars += size;
        menus.add(menu);
        index.put(menu, menus.size() - 1);
        return menus.size() - 1;
    }

    /** The distinct menus in the order they were first added. */
    public List<ConsolidatedMetadata.MenuInfo> list() {
        return List.copyOf(menus);
    }

    private static long length(String s) {
        return s == null ? 0 : s.length();
    }
}
