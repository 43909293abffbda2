/**
 * The live feed's consumers for bench/live-feed.ts, in a thread of their own (as remote clients are: the
 * service's thread does not parse what it sends). Opens `consumers` feeds of `DispositionCreated`; posts
 * `ready` once every one is open, then, for each disposition every consumer received, its name and the
 * times each received it (`process.hrtime`, in ms: the same clock in every thread).
 */
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, token, consumers } = workerData;
const now = () => Number(process.hrtime.bigint()) / 1e6;
/** For each name, when each consumer received it. */
const receipts = new Map();

function received(name) {
  const times = receipts.get(name) ?? [];
  times.push(now());
  receipts.set(name, times);
  if (times.length === consumers) {
    receipts.delete(name);
    parentPort.postMessage({ name, times });
  }
}

function open() {
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

const requests = await Promise.all(Array.from({ length: consumers }, open));
parentPort.on('message', (message) => {
  if (message === 'close') {
    requests.forEach((req) => req.destroy());
    parentPort.close();
  }
});
parentPort.postMessage('ready');
