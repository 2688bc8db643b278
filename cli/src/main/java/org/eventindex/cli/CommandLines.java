package org.eventindex.cli;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;

/**
 * Every command line of the project is parsed by picocli through here, with the same conventions: {@code --help}
 * and {@code --version} print to stdout and exit 0 ({@code mixinStandardHelpOptions} with {@link VersionProvider});
 * an unknown option, a missing or bad value is one line on stderr naming the option, {@code NAME: what is wrong},
 * then a hint to {@code --help}, and exit status {@link #USAGE_ERROR}; {@code @file} arguments are taken literally
 * (an SPB or manifest file may start with {@code @}).
 */
public final class CommandLines {
    /** Exit status of a command line that cannot be parsed, in every command. */
    public static final int USAGE_ERROR = 2;
    /** Exit status of {@code --help} and {@code --version}. */
    public static final int OK = 0;
    /** Columns of {@code --help}: long synopses (lookup, sql) fit on their lines. */
    private static final int USAGE_WIDTH = 110;

    private CommandLines() {
    }

    /** A picocli command line for {@code command} (a {@code @Command} object), to to {@code out} and {@code err}. */
    public static CommandLine of(Object command, PrintStream out, PrintStream err) {
        return of(command, List.of(), out, err);
    }

    /**
     * A picocli command line for {@code command} with {@code subcommands} added in this order after those its
     * {@code @Command} names (each a {@code @Command} object or class): a command tree assembled from commands of
     * several modules. They are added before the conventions are set, which picocli passes on to the subcommands a
     * command line has at that time only.
     */
    public static CommandLine of(Object command, List<?> subcommands, PrintStream out, PrintStream err) {
        requireNonNull(command, "command is null");
        requireNonNull(subcommands, "subcommands is null");
        requireNonNull(out, "out is null");
        requireNonNull(err, "err is null");
        CommandLine cl = new CommandLine(command);
        subcommands.forEach(cl::addSubcommand);
        cl.setExpandAtFiles(false);
        cl.setUsageHelpWidth(USAGE_WIDTH);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler(CommandLines::usageError);
        return cl;
    }

    /**
     * Parses {@code args} and runs the chosen (sub)command ({@code Callable<Integer>} or {@code Runnable}).
     *
     * @return the command's exit status; 0 after {@code --help} or {@code --version}; {@link #USAGE_ERROR}
     */
    public static int execute(Object command, String[] args, PrintStream out, PrintStream err) {
        return of(command, out, err).execute(args);
    }

    /**
     * Prints the error of a command line that cannot be parsed, as {@link #execute} does.
     *
     * @return {@link #USAGE_ERROR}
     */
    public static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        String message = e.getMessage();
        if (e instanceof CommandLine.MissingParameterException && !cl.getUnmatchedArguments().isEmpty()) {
            // picocli checks required options before it reports what it did not know: a misspelt option is the
            // more useful message (a required one may be missing only because of it).
            message = new CommandLine.UnmatchedArgumentException(cl, cl.getUnmatchedArguments()).getMessage();
        }
        err.println(cl.getCommandSpec().qualifiedName() + ": " + message);
        err.println("Run '" + cl.getCommandSpec().qualifiedName() + " --help' for the options.");
        err.flush();
        return USAGE_ERROR;
    }
}
