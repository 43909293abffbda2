import { designPolyphaseFilter } from '../../../infrastructure/speech/worker/resample-filter';
import { loadResampler } from '../../../infrastructure/speech/worker/resample-stage';

const INPUT_RATE = 22050;
const tone = (hz: number, rate: number, length: number, amplitude = 10000) =>
  Int16Array.from({ length }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));
const rms = (samples: ArrayLike<number>) =>
  Math.sqrt(Array.from(samples).reduce((sum, s) => sum + s * s, 0) / Math.max(1, samples.length));

/** Runs `input` through a new stage of `resample`, written in blocks of `block` samples. */
function convert(resample: ReturnType<typeof loadResampler>, input: Int16Array, outputRate: number, block = 2206) {
  const out: number[] = [];
  const stage = resample(INPUT_RATE, outputRate, (samples) => out.push(...samples));
  for (let at = 0; at < input.length; at += block) stage.write(input.subarray(at, at + block));
  stage.end();
  return Int16Array.from(out);
}

describe('designPolyphaseFilter', () => {
  it.each([
    [24000, 160, 147, 48],
    [16000, 320, 441, 72],
    [8000, 160, 441, 136],
  ])('tabulates %i Hz as %i phases for a ratio of %i, %i taps each, each phase of gain 1', (rate, up, down, taps) => {
    const filter = designPolyphaseFilter(INPUT_RATE, rate);
    expect(filter).toMatchObject({ up, down, taps });
    for (let p = 0; p < up; p++) {
      const phase = filter.coefficients.subarray(p * taps, (p + 1) * taps);
      expect(phase.reduce((sum, c) => sum + c, 0)).toBeCloseTo(1, 5);
    }
  });

  it('makes phase p the mirror of phase up - p (a linear-phase filter)', () => {
    const { up, taps, coefficients } = designPolyphaseFilter(INPUT_RATE, 24000);
    for (const p of [1, 37, 80]) {
      for (let k = 0; k < taps; k++)
        expect(coefficients[p * taps + k]).toBeCloseTo(coefficients[(up - p) * taps + taps - 1 - k]!, 6);
    }
  });
});

describe('the resampler', () => {
  const resample = loadResampler();

  it.each([24000, 16000, 8000])('keeps a 1 kHz tone and the duration at %i Hz', (rate) => {
    const input = tone(1000, INPUT_RATE, INPUT_RATE);
    const output = convert(resample, input, rate);
    expect(output.length).toBe(Math.ceil((input.length * rate) / INPUT_RATE));
    // Away from the edges, the same tone sampled at the new rate, within a few parts in ten thousand.
    const expected = tone(1000, rate, output.length);
    const middle = (a: Int16Array) => a.subarray(200, a.length - 200);
    const error = middle(output).map((s, i) => s - middle(expected)[i]!);
    expect(rms(error) / rms(middle(expected))).toBeLessThan(1e-3);
  });

  it('removes what the lower rate cannot carry (a 6 kHz tone at 8,000 Hz)', () => {
    const output = convert(resample, tone(6000, INPUT_RATE, INPUT_RATE), 8000);
    expect(rms(output.subarray(200, output.length - 200))).toBeLessThan(10000 * 0.001);
  });

  it('gives the same samples however the input is cut into blocks, and for every run', () => {
    const input = tone(440, INPUT_RATE, 10000);
    const once = convert(resample, input, 24000, input.length);
    expect(convert(resample, input, 24000, 100)).toEqual(once);
    expect(convert(resample, input, 24000, 4096 * 3)).toEqual(once);
    // A run starts from silence: what ran before it changes nothing.
    convert(resample, tone(3000, INPUT_RATE, 5000), 24000);
    expect(convert(resample, input, 24000)).toEqual(once);
  });

  it('clips to 16 bits instead of wrapping around', () => {
    const square = Int16Array.from({ length: 4000 }, (_, i) => (Math.floor(i / 50) % 2 ? 32767 : -32768));
    const output = convert(resample, square, 24000);
    expect(Math.max(...output)).toBe(32767);
    expect(Math.min(...output)).toBe(-32768);
    // Away from the edges every sample is near full scale with the square's sign: the overshoot
    // there was clipped, not wrapped around to the other sign.
    output.forEach((sample, n) => {
      const at = (n * INPUT_RATE) / 24000;
      const fromEdge = Math.min(at % 50, 50 - (at % 50));
      if (fromEdge > 10 && at < square.length - 10)
        expect(sample * Math.sign(square[Math.floor(at)]!)).toBeGreaterThan(30000);
    });
  });
});
