/**
 * PCM WAV framing (mono, 16-bit little-endian), used by the speech stream and by call recordings.
 * A stream whose length is not known yet gets the largest sizes a RIFF file can state (0xFFFFFFFF
 * for RIFF, that minus 36 for data, word-aligned): browsers, ffmpeg and sox then play the data as it
 * arrives and stop where it ends. A whole file states its real sizes.
 */
export const WAV_HEADER_BYTES = 44;

/** Data size to announce for a stream still being produced. */
export const STREAMING_DATA_BYTES = 0xffffffff - 36 - 1; // even: a RIFF chunk is word-aligned

export function wavHeader(sampleRate: number, dataBytes: number = STREAMING_DATA_BYTES): Buffer {
  const channels = 1;
  const bytesPerSample = 2;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * bytesPerSample, 28); // byte rate
  header.writeUInt16LE(channels * bytesPerSample, 32); // block align
  header.writeUInt16LE(bytesPerSample * 8, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Little-endian bytes of 16-bit samples, without copying (Node, like every target, is little-endian). */
export const pcmBytes = (pcm: Int16Array): Buffer => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/** A complete WAV file: the header with the real sizes, then the samples. */
export const wavFile = (samples: Int16Array, sampleRate: number): Buffer =>
  Buffer.concat([wavHeader(sampleRate, samples.byteLength), pcmBytes(samples)]);
