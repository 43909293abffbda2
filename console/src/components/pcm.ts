/**
 * 16-bit mono PCM as the speech API sends it (little-endian samples, base64 in each WebSocket chunk):
 * decoding a chunk, its samples as Web Audio wants them, a WAV file of a whole request, and its level.
 */

/** The bytes of a base64 chunk. */
export function bytesOfBase64(data: string): Uint8Array {
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** Joins bytes into 16-bit samples; an odd byte at the end waits for the next chunk. */
export function pcmReader() {
  let carry: number | undefined;
  return (bytes: Uint8Array): Int16Array => {
    const all = carry === undefined ? bytes : Uint8Array.of(carry, ...bytes);
    const even = all.length - (all.length % 2);
    carry = all.length % 2 ? all[all.length - 1] : undefined;
    const view = new DataView(all.buffer, all.byteOffset, even);
    const samples = new Int16Array(even / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    return samples;
  };
}

export function floatsOf(samples: Int16Array): Float32Array<ArrayBuffer> {
  const floats = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) floats[i] = samples[i]! / 32768;
  return floats;
}

/** A WAV file (44-byte header, 16-bit mono) of the samples received, in order. */
export function wavBlob(chunks: readonly Int16Array[], sampleRate: number): Blob {
  const length = chunks.reduce((n, c) => n + c.length, 0) * 2;
  const header = new DataView(new ArrayBuffer(44));
  const text = (at: number, value: string) => [...value].forEach((c, i) => header.setUint8(at + i, c.charCodeAt(0)));
  text(0, 'RIFF');
  header.setUint32(4, 36 + length, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, length, true);
  const body = chunks.map((c) => {
    const bytes = new DataView(new ArrayBuffer(c.length * 2));
    c.forEach((s, i) => bytes.setInt16(i * 2, s, true));
    return bytes.buffer;
  });
  return new Blob([header.buffer, ...body], { type: 'audio/wav' });
}

/** The root mean square of the samples, in dB below full scale (-Infinity for silence). */
export function levelDbfs(chunks: readonly Int16Array[]): number {
  let sum = 0;
  let count = 0;
  for (const chunk of chunks)
    for (const s of chunk) {
      sum += s * s;
      count++;
    }
  return count ? 20 * Math.log10(Math.sqrt(sum / count) / 32768) : -Infinity;
}
