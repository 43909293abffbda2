import { serializeMessage, writeOncePerTurn } from '../../../api/speech/socket-writes';

describe('serializeMessage', () => {
  it('writes an audio chunk exactly as JSON.stringify does', () => {
    const data = Buffer.from(Int16Array.from({ length: 2400 }, (_, i) => i * 13).buffer).toString('base64');
    for (const requestId of ['r', 'a "quoted" \\ id', 'नमस्ते\n\u2028']) {
      const message = { type: 'audio_chunk' as const, request_id: requestId, chunk_index: 41, data };
      expect(serializeMessage(message)).toBe(JSON.stringify(message));
    }
  });

  it('writes the other messages with JSON.stringify', () => {
    const message = {
      type: 'complete' as const,
      request_id: 'r',
      total_chunks: 3,
      characters: 12,
      audio_duration_ms: 300,
    };
    expect(serializeMessage(message)).toBe(JSON.stringify(message));
  });
});

describe('writeOncePerTurn', () => {
  it('holds the writes of one turn of the event loop and releases them once, at its end', async () => {
    const calls: string[] = [];
    const holdWrites = writeOncePerTurn({ cork: () => calls.push('cork'), uncork: () => calls.push('uncork') });
    holdWrites();
    holdWrites();
    holdWrites();
    expect(calls).toEqual(['cork']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['cork', 'uncork']);
    holdWrites();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['cork', 'uncork', 'cork', 'uncork']);
  });
});
