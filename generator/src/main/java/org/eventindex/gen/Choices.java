package org.eventindex.gen;

import java.util.List;
import java.util.Random;

import static java.util.Objects.requireNonNull;

/**
 * Where {@link RandomObjects} takes every decision from: a seeded {@link Random} for reproducible runs
 * ({@link #of(Random)}), or a fuzzer's input (a Jazzer {@code FuzzedDataProvider} answers {@link #below} with
 * {@code consumeInt(0, bound - 1)} and {@link #bits64} with {@code consumeLong()}), so that coverage guides the same
 * generator. Only the two primitive methods are abstract; the rest is derived from them, so two sources that give
 * the same primitive answers give the same cases.
 */
public interface Choices {

    /** A number in {@code [0, bound)}; {@code bound} is at least 1. */
    int below(int bound);

    /** Any 64 bits. */
    long bits64();

    /** True with the given chance in percent (0..100). */
    default boolean chance(int percent) {
        return below(100) < percent;
    }

    /** A number in {@code [min, max]} (inclusive); {@code max - min} must fit an int. */
    default int between(int min, int max) {
        if (max < min) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
        return min + below(max - min + 1);
    }

    /** A long in {@code [min, max]} (inclusive, signed), for ranges wider than an int. */
    default long betweenLong(long min, long max) {
        if (max < min) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
        long span = max - min + 1;
        if (span <= 0) {
            return bits64();
        }
        return min + Long.remainderUnsigned(bits64(), span);
    }

    /** Any 32 bits (an unsigned protobuf field's whole range). */
    default int bits32() {
        return (int) bits64();
    }

    /** One of {@code items}, which must not be empty. */
    default <T> T oneOf(List<T> items) {
        requireNonNull(items, "items is null");
        return items.get(below(items.size()));
    }

    /** One of {@code items}, which must not be empty. */
    @SuppressWarnings("unchecked")
    default <T> T oneOf(T... items) {
        return items[below(items.length)];
    }

    /** The choices of a seeded {@link Random}: the same seed gives the same answers. */
    static Choices of(Random random) {
        requireNonNull(random, "random is null");
        return new Choices() {
            @Override
            public int below(int bound) {
                return random.nextInt(bound);
            }

            @Override
            public long bits64() {
                return random.nextLong();
            }
        };
    }
}
