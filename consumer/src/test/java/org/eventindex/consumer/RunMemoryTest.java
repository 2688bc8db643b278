package org.eventindex.consumer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RunMemory}: runs within the budget are kept and read back; beyond it, none; memory comes back on delete. */
class RunMemoryTest {

    @Test
    void aRunWrittenShorterThanTakenGivesBackItsUnusedBlocksAndReleasedBlocksAreDropped() throws IOException {
        RunMemory memory = new RunMemory(4L * RunMemory.BLOCK);
        RunMemory.InMemory run = memory.take(3L * RunMemory.BLOCK);
        byte[] bytes = new byte[RunMemory.BLOCK + 10];
        new Random(6).nextBytes(bytes);
        run.output().write(bytes, 0, bytes.length);
        run.trim();
        assertEquals(2L * RunMemory.BLOCK, memory.bytesInUse(), "the third block given back");
        assertEquals(bytes.length, run.bytes());
        try (InputStream in = run.open()) {
            assertArrayEquals(bytes, in.readAllBytes());
        }
        run.delete();
        assertEquals(3, memory.freeBlocks(), "kept for the next runs");
        memory.releaseFree();
        assertEquals(0, memory.freeBlocks());
        assertEquals(0, memory.bytesInUse());
        // the whole budget is still there, in new blocks
        assertNotNull(memory.take(4L * RunMemory.BLOCK));
    }

    @Test
    void aRunReadsBackAcrossBlockBoundaries() throws IOException {
        RunMemory memory = new RunMemory(4L * RunMemory.BLOCK);
        byte[] bytes = new byte[2 * RunMemory.BLOCK + 12_345];
        new Random(5).nextBytes(bytes);
        RunMemory.InMemory run = memory.take(bytes.length);
        assertNotNull(run);
        assertEquals(3L * RunMemory.BLOCK, memory.bytesInUse(), "whole blocks");
        OutputStream out = run.output();
        // in pieces that straddle the blocks' ends
        for (int at = 0; at < bytes.length; ) {
            int n = Math.min(bytes.length - at, 70_001);
            out.write(bytes, at, n);
            at += n;
        }
        assertEquals(bytes.length, run.bytes());
        try (InputStream in = run.open()) {
            assertArrayEquals(bytes, in.readAllBytes());
        }
        // a second reader starts from the beginning
        try (InputStream in = run.open()) {
            assertEquals(bytes[0] & 0xff, in.read());
        }
        run.delete();
        run.delete();
        assertEquals(0, memory.bytesInUse(), "given back once, however often deleted");
        IOException e = assertThrows(IOException.class, run::open);
        assertTrue(e.getMessage().contains("deleted"), e.getMessage());
    }

    @Test
    void aRunThatDoesNotFitGetsNothingAndTheOthersStillFit() {
        RunMemory memory = new RunMemory(3L * RunMemory.BLOCK);
        RunMemory.InMemory a = memory.take(2L * RunMemory.BLOCK);
        assertNotNull(a);
        assertNull(memory.take(RunMemory.BLOCK + 1), "two blocks more than the budget has left");
        assertEquals(2L * RunMemory.BLOCK, memory.bytesInUse(), "a refused run takes nothing");
        RunMemory.InMemory b = memory.take(RunMemory.BLOCK);
        assertNotNull(b, "one block is left");
        assertNull(memory.take(1));
        a.delete();
        assertNotNull(memory.take(2L * RunMemory.BLOCK), "a deleted run's blocks serve the next");
        assertNull(new RunMemory(0).take(1), "no budget, no run");
        assertNotNull(new RunMemory(0).take(0), "an empty run needs no block");
    }

    @Test
    void aRunIsWrittenOnceToItsLengthAndReadOnlyWhenComplete() throws IOException {
        RunMemory memory = new RunMemory(RunMemory.BLOCK);
        RunMemory.InMemory run = memory.take(10);
        OutputStream out = run.output();
        out.write(new byte[6]);
        IOException e = assertThrows(IOException.class, run::open);
        assertTrue(e.getMessage().contains("has only 6 written"), e.getMessage());
        e = assertThrows(IOException.class, () -> out.write(new byte[5]));
        assertTrue(e.getMessage().contains("writing 5 bytes more after 6"), e.getMessage());
        out.write(new byte[4]);
        try (InputStream in = run.open()) {
            assertEquals(10, in.readAllBytes().length);
        }
    }

    @Test
    void aRunDeletedWhileBeingReadFailsTheReaderInsteadOfHandingItTheNextRunsBytes() throws IOException {
        RunMemory memory = new RunMemory(2L * RunMemory.BLOCK);
        byte[] zeros = new byte[2 * RunMemory.BLOCK];
        RunMemory.InMemory run = memory.take(zeros.length);
        run.output().write(zeros);
        InputStream in = run.open();
        assertEquals(100, in.readNBytes(100).length);
        run.delete();
        // the blocks now serve another run, filled with other bytes
        RunMemory.InMemory next = memory.take(zeros.length);
        assertNotNull(next, "the deleted run's blocks are free again");
        byte[] ones = new byte[zeros.length];
        Arrays.fill(ones, (byte) 1);
        next.output().write(ones);
        IOException e = assertThrows(IOException.class, () -> in.readNBytes(100));
        assertTrue(e.getMessage().contains("was deleted while being read, after 100 bytes"), e.getMessage());
        // a writer whose run is deleted under it is refused too, and the reader of the next run sees only its bytes
        RunMemory.InMemory third = new RunMemory(RunMemory.BLOCK).take(10);
        OutputStream out = third.output();
        out.write(new byte[4]);
        third.delete();
        e = assertThrows(IOException.class, () -> out.write(new byte[6]));
        assertTrue(e.getMessage().contains("was deleted"), e.getMessage());
        try (InputStream nextIn = next.open()) {
            assertArrayEquals(ones, nextIn.readAllBytes());
        }
    }

    @Test
    void aNegativeBudgetIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RunMemory(-1));
        assertTrue(e.getMessage().contains("run memory must not be negative"), e.getMessage());
    }
}
