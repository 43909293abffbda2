// Load generator for the benchmarks, run in a worker thread so it does not share the server's event
// loop. Like wrk, it is deliberately thin: requests are serialized up front and each connection
// speaks minimal HTTP/1.1 over a raw socket (keep-alive, Content-Length bodies only), so the load
// generator costs the machine far less CPU than the server it measures.
// Input (workerData): { url, concurrency, requests: [{ method, path, token, body }] }.
// Output: { latencies: number[] (ms), seconds, statuses: { [status]: count } }.
import { connect } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

const { url, concurrency, requests } = workerData;
const { hostname, port } = new URL(url);

const serialized = requests.map(({ method, path, token, body }) => {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nConnection: keep-alive\r\n` +
    (payload ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` : '') +
    '\r\n';
  return Buffer.from(head + payload);
});

/** One keep-alive connection: sends a request, resolves with the status once the whole answer arrived. */
function connection() {
  const socket = connect({ host: hostname, port: Number(port), noDelay: true });
  let buffer = Buffer.alloc(0);
  let waiting = null;
  socket.on('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const head = buffer.subarray(0, end).toString('latin1');
    const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffer.length < end + 4 + length) return;
    const status = Number(head.slice(9, 12));
    buffer = buffer.subarray(end + 4 + length);
    const done = waiting;
    waiting = null;
    done.resolve(status);
  });
  socket.on('error', (error) => waiting?.reject(error));
  const ready = new Promise((resolve) => socket.once('connect', resolve));
  return {
    ready,
    send: (bytes) =>
      new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(bytes);
      }),
    close: () => socket.destroy(),
  };
}

const connections = Array.from({ length: concurrency }, connection);
await Promise.all(connections.map((c) => c.ready));
const latencies = [];
const statuses = {};
let next = 0;
const started = performance.now();
await Promise.all(
  connections.map(async (c) => {
    while (next < serialized.length) {
      const bytes = serialized[next++];
      const t0 = performance.now();
      const status = await c.send(bytes);
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }),
);
parentPort.postMessage({ latencies, seconds: (performance.now() - started) / 1000, statuses });
for (const c of connections) c.close();
