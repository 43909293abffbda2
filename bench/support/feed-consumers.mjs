/**
 * The live feed's consumers for bench/live-feed.ts. `openConsumers` opens `consumers` feeds of
 * `DispositionCreated` and reports, for each disposition every consumer received, its name and the times
 * each received it (`process.hrtime` in ms: the same clock in every thread). Run as a worker thread (the
 * benchmark's default, as remote clients are: the service's thread does not parse what it sends), it
 * posts `ready` once every feed is open, then `{ name, times }` for each disposition, and closes its
 * feeds when told `close`.
 */
import { request } from 'node:http';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

const now = () => Number(process.hrtime.bigint()) / 1e6;

function open(url, token, received) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/events/live?types=DispositionCreated`, {
      headers: { authorization: `Bearer ${token}` },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const data = /^data: (.*)$/m.exec(text.slice(0, end))?.[1];
          text = text.slice(end + 2);
          if (data) received(JSON.parse(data).data.name);
        }
      });
      res.on('error', () => undefined);
      resolve(req);
    });
    req.end();
  });
}

/** Opens the feeds; `onReceived(name, times)` once every consumer has a disposition. Resolves to their closing. */
export async function openConsumers(url, token, consumers, onReceived) {
  const receipts = new Map();
  const received = (name) => {
    const times = receipts.get(name) ?? [];
    times.push(now());
    receipts.set(name, times);
    if (times.length === consumers) {
      receipts.delete(name);
      onReceived(name, times);
    }
  };
  const requests = await Promise.all(Array.from({ length: consumers }, () => open(url, token, received)));
  return () => requests.forEach((req) => req.destroy());
}

if (!isMainThread && workerData?.feedConsumers) {
  const { url, token, consumers } = workerData;
  const close = await openConsumers(url, token, consumers, (name, times) => parentPort.postMessage({ name, times }));
  parentPort.on('message', (message) => {
    if (message !== 'close') return;
    close();
    parentPort.close();
  });
  parentPort.postMessage('ready');
}
