// Speech load generator, run in a worker thread so clients do not share the server's event loop.
// Input (workerData): { url, token, kind: 'websocket' | 'websocket-kept' | 'rest', clients, rounds, text, voices,
// sampleRate }. `websocket` opens a connection per request (the clock starts at its `connected`);
// `websocket-kept` opens one per client and sends each round's request on it (the clock starts at the send).
// Output: { results: [{ firstMs, totalMs, audioMs }], seconds }.
import { parentPort, workerData } from 'node:worker_threads';
import { request } from 'node:http';
import WebSocket from 'ws';

const { url, token, kind, clients, rounds, text, voices, sampleRate } = workerData;
const body = (voice) =>
  JSON.stringify({ text, voice_id: voice, language: 'en', sample_rate: sampleRate, add_wav_header: false });

function viaSocket(voice) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let start = 0;
    let firstMs = -1;
    let bytes = 0;
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'connected') {
        start = performance.now();
        ws.send(JSON.stringify({ type: 'speech', request_id: 'r', ...JSON.parse(body(voice)) }));
      } else if (m.type === 'audio_chunk') {
        if (firstMs < 0) firstMs = performance.now() - start;
        bytes += (m.data.length * 3) / 4;
      } else if (m.type === 'complete') {
        resolve({ firstMs, totalMs: performance.now() - start, audioMs: (bytes / 2 / sampleRate) * 1000 });
        ws.close();
      } else if (m.type === 'error') reject(new Error(JSON.stringify(m)));
    });
    ws.on('error', reject);
  });
}

/** A client's connection kept open across rounds: `speak` sends one request on it and times it. */
function keptSocket() {
  return new Promise((resolveOpen, rejectOpen) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let current = null;
    let next = 0;
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'connected') return resolveOpen(client);
      if (!current || m.request_id !== current.id) return;
      if (m.type === 'audio_chunk') {
        if (current.firstMs < 0) current.firstMs = performance.now() - current.start;
        current.bytes += (m.data.length * 3) / 4;
      } else if (m.type === 'complete') {
        const { firstMs, start, bytes, resolve } = current;
        current = null;
        resolve({ firstMs, totalMs: performance.now() - start, audioMs: (bytes / 2 / sampleRate) * 1000 });
      } else if (m.type === 'error') current.reject(new Error(JSON.stringify(m)));
    });
    ws.on('error', (error) => (current ? current.reject(error) : rejectOpen(error)));
    const client = {
      speak: (voice) =>
        new Promise((resolve, reject) => {
          current = { id: `r${next++}`, firstMs: -1, bytes: 0, resolve, reject, start: performance.now() };
          ws.send(JSON.stringify({ type: 'speech', request_id: current.id, ...JSON.parse(body(voice)) }));
        }),
      close: () => ws.close(),
    };
  });
}

function viaRest(voice) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const payload = body(voice);
    const { hostname, port } = new URL(url);
    const req = request(
      {
        hostname,
        port,
        path: '/api/v1/get_speech',
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`REST ${res.statusCode}`));
        let firstMs = -1;
        let bytes = 0;
        res.on('data', (chunk) => {
          if (firstMs < 0) firstMs = performance.now() - start;
          bytes += chunk.length;
        });
        res.on('end', () =>
          resolve({ firstMs, totalMs: performance.now() - start, audioMs: (bytes / 2 / sampleRate) * 1000 }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const kept = kind === 'websocket-kept' ? await Promise.all(Array.from({ length: clients }, keptSocket)) : null;
const one = (i) =>
  kept
    ? kept[i].speak(voices[i % voices.length])
    : (kind === 'websocket' ? viaSocket : viaRest)(voices[i % voices.length]);
const results = [];
const started = performance.now();
for (let round = 0; round < rounds; round++) {
  results.push(...(await Promise.all(Array.from({ length: clients }, (_, i) => one(i)))));
}
for (const client of kept ?? []) client.close();
parentPort.postMessage({ results, seconds: (performance.now() - started) / 1000 });
