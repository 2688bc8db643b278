package org.eventindex.io;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Why a file could not be read, in words: the JDK's file exceptions carry only the path as their message
 * ({@code NoSuchFileException: /nope.json}), so "cannot read manifest /nope.json: /nope.json" named no reason. Errors
 * about a file name the file themselves and add {@link #of}.
 */
public final class FileReason {
    private FileReason() {
    }

    /** The reason of {@code e}: "no such file", "permission denied", "not a directory", or the system's words. */
    public static String of(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "it already exists";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "the directory is not empty";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason(); // e.g. "Is a directory", "Too many open files"
        }
        if (e instanceof FileSystemException) {
            return e.getClass().getSimpleName(); // its message would be the path again
        }
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    /**
     * {@code e} as one line: the file and the reason for the JDK's file exceptions ({@code /x: permission denied}),
     * else the message; for errors caught far from where the file was named.
     */
    public static String describe(IOException e) {
        if (e instanceof FileSystemException f && f.getFile() != null) {
            return f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + of(e);
        }
        return of(e);
    }
}
