import { createChunker } from '../../../infrastructure/speech/worker/chunker';

const ramp = (from: number, length: number) => Int16Array.from({ length }, (_, i) => (from + i) % 32768);
const concat = (chunks: Int16Array[]) => Int16Array.from(chunks.flatMap((c) => Array.from(c)));

describe('createChunker', () => {
  it('sends full chunks and a remainder of at least half a chunk after each block, never more than the maximum', () => {
    const sent: Int16Array[] = [];
    const chunker = createChunker(100, 0, (c) => sent.push(c));
    chunker.write(ramp(0, 70));
    chunker.flush();
    expect(sent.map((c) => c.length)).toEqual([70]);
    chunker.write(ramp(70, 230));
    chunker.flush();
    expect(sent.map((c) => c.length)).toEqual([70, 100, 100]);
    chunker.write(ramp(300, 10));
    chunker.flush(); // 40 pending: less than half a chunk waits
    expect(sent.length).toBe(3);
    const last = chunker.end();
    expect(last.length).toBe(40);
    expect(Array.from(concat([...sent, last]))).toEqual(Array.from(ramp(0, 310)));
  });

  it('splits a large end into chunks and returns the last one', () => {
    const sent: Int16Array[] = [];
    const chunker = createChunker(100, 0, (c) => sent.push(c));
    chunker.write(ramp(0, 250));
    const last = chunker.end();
    expect([...sent.map((c) => c.length), last.length]).toEqual([100, 100, 50]);
    expect(chunker.sent).toBe(200);
  });

  it('copies what it is given, so the caller may reuse its buffer', () => {
    const sent: Int16Array[] = [];
    const chunker = createChunker(4, 0, (c) => sent.push(c));
    const buffer = Int16Array.from([1, 2, 3, 4]);
    chunker.write(buffer);
    buffer.fill(9);
    chunker.flush();
    expect(Array.from(sent[0]!)).toEqual([1, 2, 3, 4]);
  });

  it('drops the samples an earlier run already sent, continuing exactly where it stopped', () => {
    const sent: Int16Array[] = [];
    const chunker = createChunker(100, 130, (c) => sent.push(c));
    chunker.write(ramp(0, 100));
    chunker.write(ramp(100, 100));
    chunker.flush();
    const last = chunker.end();
    expect(Array.from(concat([...sent, last]))).toEqual(Array.from(ramp(130, 70)));
    expect(chunker.sent + last.length).toBe(70);
  });
});
