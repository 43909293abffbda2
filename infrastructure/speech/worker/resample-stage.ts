/**
 * Converts eSpeak's 22,050 Hz to the requested rate with a polyphase filter (resample-filter.ts) whose
 * dot products run in a small WebAssembly kernel (polyphase.wat). Each conversion has its filter and
 * buffers in a memory of its own, made once and reused for every segment (a worker runs one segment at
 * a time): a segment starts from silence, so its samples do not depend on the segment before it. The
 * memory never grows: growing it would detach its buffer, which costs eSpeak's compiled code its speed
 * (synthesis-worker.ts).
 *
 * Output sample n is the input's value at n × down / up (the first output is the first input sample);
 * the filter reaches `taps / 2` input samples ahead, so at the end zeros push out the last outputs, as
 * many as the segment's length at the new rate.
 */
import { designPolyphaseFilter } from './resample-filter';
import { POLYPHASE_WASM } from './polyphase-kernel';
import type { Sink, Stage } from './stage';

/** Input samples taken at a time, and output samples the kernel writes per call. */
const BLOCK = 4096;
const PAGE_BYTES = 65536;

export type Resampler = (inputRate: number, outputRate: number, next: Sink) => Stage;

type Kernel = {
  resample(
    state: number,
    coefficients: number,
    taps: number,
    up: number,
    down: number,
    input: number,
    length: number,
    output: number,
    capacity: number,
  ): number;
};

/** The WebAssembly API used here, which the project's TypeScript libraries (no DOM) do not declare. */
type WebAssemblyApi = {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { exports: unknown };
};
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
const kernelModule = new wasm.Module(Buffer.from(POLYPHASE_WASM, 'base64'));

/** One conversion: its filter, input and output in one WebAssembly memory, laid out once. */
function createConversion(inputRate: number, outputRate: number) {
  const { up, down, taps, coefficients } = designPolyphaseFilter(inputRate, outputRate);
  const at = { state: 0, coefficients: 16, input: 16 + coefficients.byteLength };
  const inputCapacity = taps + BLOCK;
  const output = at.input + inputCapacity * 4;
  const memory = new wasm.Memory({ initial: Math.ceil((output + BLOCK * 2) / PAGE_BYTES) });
  const kernel = new wasm.Instance(kernelModule, { resampler: { memory } }).exports as Kernel;
  // Views made once: the memory never grows, so they stay valid.
  new Float32Array(memory.buffer, at.coefficients, coefficients.length).set(coefficients);
  const state = new Int32Array(memory.buffer, at.state, 2);
  const input = new Float32Array(memory.buffer, at.input, inputCapacity);
  const outputSamples = new Int16Array(memory.buffer, output, BLOCK);
  const silence = new Int16Array(taps);

  return (next: Sink): Stage => {
    // The filter's first half reaches before the first sample: silence there.
    let length = taps / 2 - 1;
    input.fill(0, 0, length);
    state.fill(0);
    let written = 0;
    let produced = 0;

    /** Writes outputs while the filter fits in the input, up to `limit` in all; keeps the input still needed. */
    const run = (limit: number) => {
      for (let count = BLOCK; count === BLOCK && produced < limit;) {
        const capacity = Math.min(BLOCK, limit - produced);
        count = kernel.resample(at.state, at.coefficients, taps, up, down, at.input, length, output, capacity);
        produced += count;
        if (count > 0) next(outputSamples.subarray(0, count));
      }
      const start = state[1]!;
      input.copyWithin(0, start, length);
      length -= start;
      state[1] = 0;
    };
    const write = (samples: Int16Array, limit: number) => {
      for (let offset = 0; offset < samples.length;) {
        const block = samples.subarray(offset, offset + inputCapacity - length);
        input.set(block, length);
        length += block.length;
        offset += block.length;
        run(limit);
      }
    };

    return {
      write(samples) {
        written += samples.length;
        write(samples, Infinity);
      },
      end: () => write(silence, Math.ceil((written * up) / down)),
    };
  };
}

export function loadResampler(): Resampler {
  const conversions = new Map<string, ReturnType<typeof createConversion>>();
  return (inputRate, outputRate, next) => {
    const key = `${inputRate}>${outputRate}`;
    let conversion = conversions.get(key);
    if (!conversion) conversions.set(key, (conversion = createConversion(inputRate, outputRate)));
    return conversion(next);
  };
}
