import { parseWav, InvalidWavError } from '../../../infrastructure/speech/wav/parse';
import { pcmBytes, STREAMING_DATA_BYTES, WAV_HEADER_BYTES, wavHeader } from '../../../infrastructure/speech/wav/header';

const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);

describe('wavHeader', () => {
  it('writes a 44-byte mono 16-bit PCM header for the rate and data size', () => {
    const header = wavHeader(16000, 12);
    expect(header.length).toBe(WAV_HEADER_BYTES);
    expect(header.toString('ascii', 0, 4)).toBe('RIFF');
    expect(header.readUInt32LE(4)).toBe(36 + 12);
    expect(header.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(header.readUInt32LE(16)).toBe(16);
    expect(header.readUInt16LE(20)).toBe(1); // PCM
    expect(header.readUInt16LE(22)).toBe(1); // mono
    expect(header.readUInt32LE(24)).toBe(16000);
    expect(header.readUInt32LE(28)).toBe(32000); // bytes per second
    expect(header.readUInt16LE(32)).toBe(2); // block align
    expect(header.readUInt16LE(34)).toBe(16);
    expect(header.toString('ascii', 36, 40)).toBe('data');
    expect(header.readUInt32LE(40)).toBe(12);
  });

  it('announces the largest even data size while streaming, with a RIFF size that fits 32 bits', () => {
    const header = wavHeader(24000);
    expect(header.readUInt32LE(40)).toBe(STREAMING_DATA_BYTES);
    expect(STREAMING_DATA_BYTES % 2).toBe(0);
    expect(header.readUInt32LE(4)).toBe(STREAMING_DATA_BYTES + 36);
    expect(header.readUInt32LE(4)).toBeLessThanOrEqual(0xffffffff);
  });
});

describe('parseWav', () => {
  it('reads back what the header and pcmBytes wrote', () => {
    const wav = Buffer.concat([wavHeader(8000, samples.byteLength), pcmBytes(samples)]);
    const parsed = parseWav(wav);
    expect(parsed).toMatchObject({
      sampleRate: 8000,
      channels: 1,
      bitsPerSample: 16,
      declaredDataBytes: samples.byteLength,
    });
    expect(Array.from(parsed.samples)).toEqual(Array.from(samples));
  });

  it('reads a streaming file to the end of the bytes present', () => {
    const wav = Buffer.concat([wavHeader(24000), pcmBytes(samples)]);
    expect(Array.from(parseWav(wav).samples)).toEqual(Array.from(samples));
  });

  it('reads from an odd offset of a larger buffer', () => {
    const wav = Buffer.concat([Buffer.from([9]), wavHeader(24000, samples.byteLength), pcmBytes(samples)]).subarray(1);
    expect(Array.from(parseWav(wav).samples)).toEqual(Array.from(samples));
  });

  it('refuses what is not a PCM WAV file', () => {
    expect(() => parseWav(Buffer.from('not a wav file at all, really'))).toThrow(InvalidWavError);
  });
});

describe('pcmBytes', () => {
  it('gives the samples as little-endian bytes without copying', () => {
    const bytes = pcmBytes(Int16Array.from([0x0102, -2]));
    expect(Array.from(bytes)).toEqual([0x02, 0x01, 0xfe, 0xff]);
  });
});
