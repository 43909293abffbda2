/**
 * A step of the audio pipeline: it takes 16-bit samples and passes what it produces to the next
 * step. Arrays passed along may be views of a WebAssembly memory, valid only during the call, so a
 * step consumes (or copies) them before returning.
 */
export type Sink = (samples: Int16Array) => void;

export type Stage = {
  write(samples: Int16Array): void;
  /** No more input: pass on everything still held. */
  end(): void;
};
