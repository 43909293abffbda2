/**
 * G.711 μ-law, the audio of Twilio's Media Streams (`audio/x-mulaw`, 8,000 Hz, mono): each 16-bit
 * PCM sample becomes one byte, a sign, a 3-bit exponent (segment) and a 4-bit mantissa, inverted.
 * Samples are biased by 132 so every segment is twice as wide as the one below it; the loudest
 * magnitude that fits is 32,635 (louder ones are clipped). Decoding gives the middle of the encoded
 * interval, so a round trip is off by at most half a step: 4 near silence, 1/32 of the biased
 * magnitude elsewhere.
 */

const BIAS = 0x84;
const CLIP = 32635;

/** One PCM16 sample as a μ-law byte (0 → 0xFF, +32,767 → 0x80, -32,768 → 0x00). */
export function mulawOfSample(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(sign ? -sample : sample, CLIP) + BIAS;
  // The segment is the position of the highest set bit above bit 7 (magnitude >= 132 has one at bit 7 or more).
  const exponent = 31 - Math.clz32(magnitude >> 7);
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** One μ-law byte as a PCM16 sample. */
export function sampleOfMulaw(byte: number): number {
  const bits = ~byte & 0xff;
  const exponent = (bits >> 4) & 0x07;
  const magnitude = ((((bits & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  return bits & 0x80 ? 0 - magnitude : magnitude; // 0 - 0 is 0, not -0
}

/** PCM16 samples as μ-law bytes, written into `into` at `offset` (a new buffer by default). */
export function encodeMulaw(pcm: Int16Array, into: Buffer = Buffer.allocUnsafe(pcm.length), offset = 0): Buffer {
  for (let i = 0; i < pcm.length; i++) into[offset + i] = ENCODED[pcm[i]! + 32768]!;
  return into;
}

export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const pcm = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) pcm[i] = DECODED[bytes[i]!]!;
  return pcm;
}

/** The byte of silence (0). */
export const MULAW_SILENCE = 0xff;

// Tables: 64 KiB and 512 bytes, filled once; an encode is then one look-up per sample.
const ENCODED = new Uint8Array(65536).map((_, i) => mulawOfSample(i - 32768));
const DECODED = new Int16Array(256).map((_, byte) => sampleOfMulaw(byte));
