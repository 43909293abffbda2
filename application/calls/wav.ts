/**
 * A complete PCM WAV file (mono, 16-bit little-endian) from samples: the 44-byte header with the real
 * sizes, then the data. The speech adapter streams WAV with sizes unknown up front; a recording is
 * whole before it is stored, so its header states them exactly.
 */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const file = Buffer.alloc(44 + dataBytes);
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + dataBytes, 4);
  file.write('WAVE', 8, 'ascii');
  file.write('fmt ', 12, 'ascii');
  file.writeUInt32LE(16, 16); // size of the fmt chunk
  file.writeUInt16LE(1, 20); // PCM
  file.writeUInt16LE(1, 22); // mono
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28); // byte rate
  file.writeUInt16LE(2, 32); // block align
  file.writeUInt16LE(16, 34); // bits per sample
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(dataBytes, 40);
  // Samples are little-endian in memory on every platform Node runs on, as WAV wants them.
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).copy(file, 44);
  return file;
}
