package org.eventindex.cli;

import org.eventindex.ProjectVersion;

import picocli.CommandLine;

/**
 * {@code --version} of every picocli command: the command's full name and {@link ProjectVersion#describe()} (the version
 * and the git commit).
 */
public final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[]{"${COMMAND-FULL-NAME} " + ProjectVersion.describe()};
    }
}
