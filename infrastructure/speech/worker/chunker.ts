/**
 * Cuts the output of a segment into chunks of at most `maxSamples` (100 ms). After each block eSpeak
 * delivers, full chunks go out, and so does a remainder of at least half a chunk; a smaller remainder
 * waits for the next block, so chunks are not crumbs. The first `skipSamples` are dropped: they were
 * sent by an earlier run of the segment. Chunks are copies, safe to post to another thread.
 */
import type { Sink } from './stage';

export type Chunker = {
  /** Takes samples (copied; the view may be reused by the caller). */
  write: Sink;
  /** A block of eSpeak's output has been written: send what is ready. */
  flush(): void;
  /** The segment is over: sends all but the last chunk and returns that last one (possibly empty). */
  end(): Int16Array;
  /** Samples sent so far (not counting skipped ones). */
  readonly sent: number;
};

export function createChunker(maxSamples: number, skipSamples: number, send: (chunk: Int16Array) => void): Chunker {
  let pending = new Int16Array(maxSamples * 4);
  let length = 0;
  let toSkip = skipSamples;
  let sent = 0;

  const take = (count: number) => {
    const chunk = pending.slice(0, count);
    pending.copyWithin(0, count, length);
    length -= count;
    return chunk;
  };
  const emit = (count: number) => {
    sent += count;
    send(take(count));
  };

  return {
    write(input) {
      const skipped = Math.min(toSkip, input.length);
      toSkip -= skipped;
      const samples = skipped > 0 ? input.subarray(skipped) : input;
      if (length + samples.length > pending.length) {
        const grown = new Int16Array(Math.max(pending.length * 2, length + samples.length));
        grown.set(pending.subarray(0, length));
        pending = grown;
      }
      pending.set(samples, length);
      length += samples.length;
    },
    flush() {
      while (length >= maxSamples) emit(maxSamples);
      if (length >= maxSamples / 2) emit(length);
    },
    end() {
      while (length > maxSamples) emit(maxSamples);
      return take(length);
    },
    get sent() {
      return sent;
    },
  };
}
