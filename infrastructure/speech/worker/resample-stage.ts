/**
 * Converts eSpeak's 22,050 Hz to the requested rate with the Speex resampler (its SIMD build; every
 * Node version the service supports runs WebAssembly SIMD). One resampler per output rate is kept and
 * reset for each segment, which gives the same samples as a new one without rebuilding its filter.
 * At the end of a segment, zeros as long as the filter's delay push out the last samples.
 */
import type { SpeexModule } from '@echogarden/speex-resampler-wasm/simd';
import type { Sink, Stage } from './stage';

const BLOCK = 4096;
/** Speex quality 0 to 10. 3 is its "VoIP" setting, ample for eSpeak's band; 5 costs a third more time. */
const QUALITY = 3;

export type Resampler = (inputRate: number, outputRate: number, next: Sink) => Stage;

export async function loadResampler(): Promise<Resampler> {
  const speex: SpeexModule = await (await import('@echogarden/speex-resampler-wasm/simd')).default();
  const input = speex._malloc(BLOCK * 2);
  const output = speex._malloc(BLOCK * 2 * 4); // room for 4x upsampling of a full block
  const counts = speex._malloc(8); // [input count, output count] as uint32
  const error = speex._malloc(4);
  const states = new Map<string, number>();

  const stateFor = (inputRate: number, outputRate: number) => {
    const key = `${inputRate}>${outputRate}`;
    let state = states.get(key);
    if (state === undefined) {
      state = speex._speex_resampler_init(1, inputRate, outputRate, QUALITY, error);
      if (!state) throw new Error(`Speex resampler cannot convert ${key}`);
      states.set(key, state);
    }
    speex._speex_resampler_reset_mem(state);
    speex._speex_resampler_skip_zeros(state);
    return state;
  };

  return (inputRate, outputRate, next) => {
    const state = stateFor(inputRate, outputRate);
    const resample = (samples: Int16Array) => {
      for (let offset = 0; offset < samples.length;) {
        const block = samples.subarray(offset, offset + BLOCK);
        speex.HEAP16.set(block, input >> 1);
        speex.HEAPU32[counts >> 2] = block.length;
        speex.HEAPU32[(counts >> 2) + 1] = BLOCK * 4;
        speex._speex_resampler_process_int(state, 0, input, counts, output, counts + 4);
        const consumed = speex.HEAPU32[counts >> 2]!;
        const produced = speex.HEAPU32[(counts >> 2) + 1]!;
        if (consumed === 0 && produced === 0) throw new Error('Speex resampler made no progress');
        if (produced > 0) next(speex.HEAP16.subarray(output >> 1, (output >> 1) + produced));
        offset += consumed;
      }
    };
    return {
      write: resample,
      end: () => resample(new Int16Array(speex._speex_resampler_get_input_latency(state))),
    };
  };
}
