import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export type LoadRequest = { method: string; path: string; token: string; body?: unknown };
export type LoadResult = { latencies: number[]; seconds: number; statuses: Record<string, number> };

/** Runs the requests from a separate thread with `concurrency` clients (see http-load.mjs). */
export function runLoad(url: string, concurrency: number, requests: LoadRequest[]): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'http-load.mjs'), { workerData: { url, concurrency, requests } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}
