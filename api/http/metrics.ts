/** A small Prometheus registry: request counts and latencies, plus gauges read at scrape time. */
import type { RequestHandler } from 'express';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, { buckets: number[]; sum: number; count: number }>();
  private readonly gauges = new Map<string, { help: string; read: () => number }>();

  gauge(name: string, help: string, read: () => number): void {
    this.gauges.set(name, { help, read });
  }

  middleware(): RequestHandler {
    return (req, res, next) => {
      const start = process.hrtime.bigint();
      res.on('finish', () => {
        const route = (req.route?.path as string | undefined) ? `${req.baseUrl}${req.route.path}` : 'unmatched';
        const key = `method="${req.method}",route="${route}",status="${res.statusCode}"`;
        this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const hkey = `method="${req.method}",route="${route}"`;
        const h = this.durations.get(hkey) ?? { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
        BUCKETS.forEach((b, i) => {
          if (seconds <= b) h.buckets[i]!++;
        });
        h.sum += seconds;
        h.count++;
        this.durations.set(hkey, h);
      });
      next();
    };
  }

  render(): string {
    const lines: string[] = [
      '# HELP http_requests_total HTTP requests answered.',
      '# TYPE http_requests_total counter',
    ];
    for (const [labels, n] of this.requests) lines.push(`http_requests_total{${labels}} ${n}`);
    lines.push(
      '# HELP http_request_duration_seconds HTTP request latency.',
      '# TYPE http_request_duration_seconds histogram',
    );
    for (const [labels, h] of this.durations) {
      BUCKETS.forEach((b, i) =>
        lines.push(`http_request_duration_seconds_bucket{${labels},le="${b}"} ${h.buckets[i]}`),
      );
      lines.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      lines.push(
        `http_request_duration_seconds_sum{${labels}} ${h.sum}`,
        `http_request_duration_seconds_count{${labels}} ${h.count}`,
      );
    }
    for (const [name, g] of this.gauges)
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`, `${name} ${g.read()}`);
    return lines.join('\n') + '\n';
  }
}
