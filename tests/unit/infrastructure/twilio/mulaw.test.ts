import { FRAME_BYTES, MulawFrames } from '../../../../infrastructure/twilio/media/frames';
import { decodeMulaw, encodeMulaw, mulawOfSample, sampleOfMulaw } from '../../../../infrastructure/twilio/media/mulaw';

describe('G.711 μ-law', () => {
  it('encodes the known values of the standard', () => {
    expect(mulawOfSample(0)).toBe(0xff);
    expect(mulawOfSample(-1)).toBe(0x7f);
    expect(mulawOfSample(32767)).toBe(0x80);
    expect(mulawOfSample(-32768)).toBe(0x00);
    // The top of the first segment (132 + 127 = 259 < 256 + 3) and the start of the second.
    expect(mulawOfSample(123)).toBe(0xf0);
    expect(mulawOfSample(124)).toBe(0xef);
    expect(mulawOfSample(8031)).toBe(0xa0);
  });

  it('decodes the known values of the standard', () => {
    expect(sampleOfMulaw(0xff)).toBe(0);
    expect(sampleOfMulaw(0x7f)).toBe(0);
    expect(sampleOfMulaw(0x80)).toBe(32124);
    expect(sampleOfMulaw(0x00)).toBe(-32124);
    expect(sampleOfMulaw(0xf0)).toBe(124 - 4);
  });

  it('comes back within half a step: 4 near silence, 1/32 of the biased magnitude above', () => {
    const pcm = new Int16Array(65536).map((_, i) => i - 32768);
    const back = decodeMulaw(encodeMulaw(pcm));
    for (let i = 0; i < pcm.length; i++) {
      const x = pcm[i]!;
      const magnitude = Math.min(Math.abs(x), 32635);
      const bound = Math.abs(x) > 32635 ? Math.abs(x) - 32124 : Math.max(4, (magnitude + 132) / 32);
      if (Math.abs(back[i]! - x) > bound) throw new Error(`${x} came back as ${back[i]}`);
    }
  });

  it('keeps the sign and the order of magnitudes (monotonic)', () => {
    let previous = -Infinity;
    for (let x = -32768; x <= 32767; x++) {
      const y = sampleOfMulaw(mulawOfSample(x));
      if (y < previous || Math.sign(y) * Math.sign(x) < 0) throw new Error(`${x} came back as ${y}`);
      previous = y;
    }
  });

  it('encodes every byte back to itself, except the second zero', () => {
    for (let byte = 0; byte < 256; byte++) expect(mulawOfSample(sampleOfMulaw(byte))).toBe(byte === 0x7f ? 0xff : byte);
  });
});

describe('μ-law frames', () => {
  it('cuts chunks of any length into 160-byte frames, in order, and pads the last with silence', () => {
    const pcm = new Int16Array(1000).map((_, i) => (i * 37) % 20000);
    const frames = new MulawFrames();
    const out = [
      ...frames.push(pcm.subarray(0, 7)),
      ...frames.push(pcm.subarray(7, 500)),
      ...frames.push(pcm.subarray(500, 500)),
      ...frames.push(pcm.subarray(500)),
    ];
    const last = frames.end();
    expect(out).toHaveLength(6);
    expect(out.every((frame) => frame.length === FRAME_BYTES)).toBe(true);
    expect(last).toHaveLength(FRAME_BYTES);
    const all = Buffer.concat([...out, last!]);
    expect(all.subarray(0, 1000)).toEqual(encodeMulaw(pcm));
    expect([...all.subarray(1000)]).toEqual(new Array(120).fill(0xff));
    expect(frames.end()).toBeNull();
  });
});
