/**
 * Reads a PCM WAV file back into samples: the chunks are walked rather than assuming 44 bytes, and a
 * streaming header (data size larger than the file) reads to the end of the bytes present. Used by
 * tests to check what the service sends.
 */
export type ParsedWav = {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Data size the header announces (0xFFFFFFFF-like while streaming). */
  declaredDataBytes: number;
  samples: Int16Array;
};

export class InvalidWavError extends Error {}

export function parseWav(bytes: Uint8Array): ParsedWav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new InvalidWavError('not a RIFF/WAVE file');
  let format: Omit<ParsedWav, 'samples' | 'declaredDataBytes'> | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (view.getUint16(body, true) !== 1) throw new InvalidWavError('not PCM');
      format = {
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!format) throw new InvalidWavError('data before fmt');
      if (format.bitsPerSample !== 16) throw new InvalidWavError(`${format.bitsPerSample}-bit samples`);
      const end = Math.min(bytes.length, body + size);
      const data = new Uint8Array(bytes.subarray(body, body + ((end - body) & ~1))); // a copy, aligned for Int16Array
      return {
        ...format,
        declaredDataBytes: size,
        samples: new Int16Array(data.buffer, data.byteOffset, data.byteLength / 2),
      };
    }
    offset = body + size + (size & 1);
  }
  throw new InvalidWavError('no data chunk');
}
