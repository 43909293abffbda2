/**
 * `npm run bench`: every benchmark in bench/, one after another (each in its own process, so one's
 * memory does not count against the next), then the section of docs/benchmarks.md between its
 * `bench:begin` and `bench:end` markers is rewritten with the machine, the date, each target beside
 * what was measured, and every benchmark's own output. The notes below the markers are kept.
 *
 *   npm run bench [-- --quick] [-- --only core,logs] [-- --peer DIR]
 *
 * `--quick` runs each with smaller sizes (minutes instead of most of an hour; figures then not
 * comparable with the targets, and the section says so). `--peer DIR` is the native eSpeak NG peer
 * (a directory with `run.sh` and `texts.json`) for the speech engine's CPU ratio. MongoDB's explain
 * (bench/mongodb-explain.ts) needs a server and is not run here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

const flag = (name: string) => process.argv.includes(`--${name}`);
const option = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const QUICK = flag('quick');
const ONLY = option('only')?.split(',');
const PEER = option('peer');

/** A target: a figure read from the output (the first number the pattern captures), and its bound. */
type Target = { label: string; pattern: RegExp; bound: '≤' | '≥'; value: number; unit: string };
type Bench = { name: string; args: string[]; quickArgs: string[]; targets: Target[] };

const max = (label: string, pattern: RegExp, value: number, unit: string): Target => ({
  label,
  pattern,
  bound: '≤',
  value,
  unit,
});
const min = (label: string, pattern: RegExp, value: number, unit: string): Target => ({
  label,
  pattern,
  bound: '≥',
  value,
  unit,
});

const BENCHES: Bench[] = [
  {
    name: 'core',
    args: [],
    quickArgs: ['--commands', '4000', '--rebuild-events', '20000'],
    targets: [
      min('commands, 32 clients', /clients=32 .*throughput=(\d+) cmd\/s/, 2000, 'cmd/s'),
      max('commands, 32 clients, p95', /clients=32 .*p95=([\d.]+) ms/, 20, 'ms'),
      min('rebuild, 100,000 events', /rebuild .*speed=(\d+) events\/s/, 50000, 'events/s'),
    ],
  },
  {
    name: 'customers',
    args: [],
    quickArgs: ['--rounds', '1'],
    targets: [
      max('bulk add of 10,000, median', /initiateCall=false .*? {2}median=(\d+) ms/, 1000, 'ms'),
      max('bulk add of 10,000 with calls, median', /initiateCall=true .*? {2}median=(\d+) ms/, 2000, 'ms'),
    ],
  },
  {
    // What sealing personal data costs a bulk add: rounds alternated with it off and on.
    name: 'customers',
    args: ['--compare', '--rounds', '7'],
    quickArgs: ['--compare', '--rounds', '1'],
    targets: [
      max('bulk add, sealing on against off, new subjects', /subjects=new .*overhead=\+?(-?[\d.]+)%/, 15, '%'),
      max(
        'bulk add, sealing on against off, known subjects (keys cached)',
        /subjects=known .*overhead=\+?(-?[\d.]+)%/,
        15,
        '%',
      ),
    ],
  },
  {
    name: 'chats',
    args: [],
    quickArgs: ['--customers', '20000', '--runs', '1'],
    targets: [max('initiate chat to 10,000, p50', /initiate chat .*p50=(\d+) ms/, 1000, 'ms')],
  },
  {
    name: 'logs',
    args: [],
    quickArgs: ['--entries', '100000', '--repeat', '10'],
    targets: [
      max('first page, no filter, p95', /^first page.*p95=([\d.]+) ms/m, 20, 'ms'),
      max('campaign + status + agent + time, p95', /^campaign \+ status.*p95=([\d.]+) ms/m, 50, 'ms'),
    ],
  },
  {
    name: 'audit',
    args: [],
    quickArgs: ['--events', '100000', '--repeat', '10'],
    targets: [
      max('first page, p95', /^first page.*p95=([\d.]+) ms/m, 20, 'ms'),
      max('deep page, p95', /^deep page.*p95=([\d.]+) ms/m, 20, 'ms'),
    ],
  },
  {
    name: 'live-feed',
    args: [],
    quickArgs: ['--events', '50'],
    targets: [max('append to receipt, 50 consumers, p95', /p95 ([\d.]+) ms/, 20, 'ms')],
  },
  {
    name: 'rebuild',
    args: [],
    quickArgs: ['--events', '100000'],
    targets: [min('rebuild of every projection', /^rebuild .*speed=([\d,]+) events\/s/m, 100000, 'events/s')],
  },
  {
    // The same over events as the service stores them by default: personal fields sealed, opened on reading.
    name: 'rebuild',
    args: ['--sealed', '--runs', '1'],
    quickArgs: ['--sealed', '--runs', '1', '--events', '100000'],
    targets: [
      min(
        'rebuild of every projection, personal data sealed (the default)',
        /^rebuild .*speed=([\d,]+) events\/s/m,
        100000,
        'events/s',
      ),
    ],
  },
  { name: 'analytics', args: [], quickArgs: ['--calls', '6000', '--repeat', '3'], targets: [] },
  {
    name: 'console',
    args: [],
    quickArgs: ['--loads', '5'],
    targets: [
      max('console first page, gzipped JavaScript', /gzipped JavaScript=([\d.]+) KB/, 300, 'KB'),
      max('console first page usable, new tab, p95', /over \d+ new tabs .*p95=(\d+) ms/, 1000, 'ms'),
    ],
  },
  {
    name: 'speech-admission',
    args: [],
    quickArgs: ['--requests', '100000', '--trials', '10'],
    targets: [max('cold admission, busy against new organization', /difference of medians: (-?[\d.]+) ms/, 2, 'ms')],
  },
  {
    name: 'speech-engine',
    args: [...(PEER ? ['--peer', PEER] : [])],
    quickArgs: ['--rounds', '1', ...(PEER ? ['--peer', PEER] : [])],
    targets: [
      max('native CPU per request against espeak-ng', /against espeak-ng\s+[\d.]+x\s+([\d.]+)x/, 1.3, 'x'),
      min('20 concurrent, real-time factor (native)', /20 concurrent: real-time factor\s+\d+x\s+(\d+)x/, 600, 'x'),
      max('peak memory (native)', /peak resident memory\s+\d+ MB\s+(\d+) MB/, 400, 'MB'),
    ],
  },
  {
    name: 'speech',
    args: [],
    quickArgs: ['--rounds', '2'],
    targets: [
      max(
        'WebSocket, 20 clients, first chunk p50 (native)',
        /^native\s+websocket clients=20\s+first-chunk p50=([\d.]+)/m,
        10,
        'ms',
      ),
      max(
        'WebSocket, 20 clients, first chunk p95 (native)',
        /^native\s+websocket clients=20\s+first-chunk p50=[\d.]+ ms p95=([\d.]+) ms/m,
        30,
        'ms',
      ),
      min(
        'WebSocket, 20 clients, real-time factor (native)',
        /^native\s+websocket clients=20 .*real-time factor=(\d+)x/m,
        600,
        'x',
      ),
      max(
        'WebSocket, 20 clients on kept connections, first chunk p50 (native)',
        /^native\s+websocket-kept clients=20\s+first-chunk p50=([\d.]+)/m,
        10,
        'ms',
      ),
      max(
        'WebSocket, 20 clients on kept connections, first chunk p95 (native)',
        /^native\s+websocket-kept clients=20\s+first-chunk p50=[\d.]+ ms p95=([\d.]+) ms/m,
        30,
        'ms',
      ),
    ],
  },
  {
    name: 'twilio-media',
    args: [],
    quickArgs: ['--streams', '20'],
    targets: [max('Twilio media stream, first frame p95, 8 at once', /^\s+8\s+[\d.]+\s+([\d.]+)/m, 150, 'ms')],
  },
];

type Result = { bench: Bench; output: string; seconds: number; status: number | null };

function run(bench: Bench): Result {
  const started = performance.now();
  console.log(`\n== bench/${bench.name}.ts ${(QUICK ? bench.quickArgs : bench.args).join(' ')}`);
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(__dirname, `${bench.name}.ts`), ...(QUICK ? bench.quickArgs : bench.args)],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const output = child.stdout ?? '';
  process.stdout.write(output);
  return { bench, output, seconds: (performance.now() - started) / 1000, status: child.status };
}

const figure = (target: Target, output: string): number | undefined => {
  const match = target.pattern.exec(output);
  return match ? Number(match[1]!.replace(/,/g, '')) : undefined;
};

function section(results: Result[]): string {
  const machine = `${cpus().length} vCPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const lines = [
    `## Latest \`npm run bench\`${QUICK ? ' (quick sizes: not comparable with the targets)' : ''}`,
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}. Generated by \`bench/all.ts\`; the notes below are written by hand.`,
    '',
    '| benchmark | figure | measured | target | |',
    '|---|---|---|---|---|',
  ];
  for (const { bench, output, status } of results) {
    if (status !== 0) lines.push(`| ${bench.name} | the benchmark failed (exit ${status}) | | | **failed** |`);
    for (const target of bench.targets) {
      const value = figure(target, output);
      const met = value !== undefined && (target.bound === '≤' ? value <= target.value : value >= target.value);
      lines.push(
        `| ${bench.name} | ${target.label} | ${value === undefined ? 'not printed' : `${value.toLocaleString('en')} ${target.unit}`} | ${target.bound} ${target.value.toLocaleString('en')} ${target.unit} | ${met ? 'met' : '**not met**'} |`,
      );
    }
  }
  lines.push('');
  for (const { bench, output, seconds } of results) {
    lines.push(
      `<details><summary>bench/${bench.name}.ts${bench.args.length > 0 ? ` ${bench.args.join(' ')}` : ''} (${seconds.toFixed(0)} s)</summary>`,
      '',
      '```',
      output.trim(),
      '```',
      '',
      '</details>',
      '',
    );
  }
  return lines.join('\n');
}

function main() {
  const chosen = BENCHES.filter((b) => !ONLY || ONLY.includes(b.name));
  const results = chosen.map(run);
  const file = join(__dirname, '..', 'docs', 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  const [head, rest] = text.includes(begin)
    ? [text.slice(0, text.indexOf(begin)), text.slice(text.indexOf(end) + end.length)]
    : [`${text.split('\n')[0]}\n\n`, `\n${text.split('\n').slice(1).join('\n')}`];
  writeFileSync(file, `${head}${begin}\n${section(results)}\n${end}${rest}`);
  console.log(`\ndocs/benchmarks.md: ${results.length} benchmarks written`);
  if (results.some((r) => r.status !== 0)) process.exitCode = 1;
}

main();
