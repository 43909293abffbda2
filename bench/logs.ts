/**
 * Logs queries over 1,000,000 log entries (two calls for every chat, mixed in one collection as the
 * service keeps them) in the embedded SQLite read store, through the logs query service (the HTTP
 * layer adds well under a millisecond): first page without a filter and with each filter (the type
 * and status filters across both channels), a combination, a deep page, counts, and the chat detail. The read model is filled directly (this measures
 * queries, not projection speed; bench/core.ts measures that). All entries belong to one organization,
 * the worst case for its indexes.
 *
 * The read model holds what the projections wrote, opened: sealing personal data in the events
 * (docs/privacy.md) does not reach these queries. `--encryption on|off` is taken for symmetry with the
 * service benchmarks and printed; bench/customers.ts measures what sealing costs.
 *
 *   npx tsx bench/logs.ts [--entries 1000000] [--repeat 30] [--encryption on|off]
 */
import { join } from 'node:path';
import { LogService, type LogFilters } from '../application/logs/log-service';
import { SqliteReadStore } from '../infrastructure/sqlite/sqlite-read-store';
import { callLogsProjection, type CallLogDocument } from '../projections/logs/call-logs';
import type { ChatLogDocument } from '../projections/logs/chat-logs';
import { tempDir } from '../tests/support/temp-dir';
import { encryptionArg } from './support/bench-service';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ENTRIES = arg('entries', 1_000_000);
const REPEAT = arg('repeat', 30);
const STATUSES = ['Completed', 'Completed', 'Completed', 'No Contact', 'No Contact', 'Failed'] as const;
const DISPOSITIONS = ['Promise to pay', 'Already paid', 'Call back', 'Dispute', 'Wrong number', 'Not interested'];
let peakRss = 0;
// The queries are synchronous: memory is sampled after each step rather than on a timer.
const sample = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

const CHAT_STATUSES = ['Read', 'Read', 'Delivered', 'Sent', 'Failed'] as const;

/** Every third entry is a chat. */
const entry = (n: number): CallLogDocument | ChatLogDocument => (n % 3 === 2 ? chatEntry(n) : callEntry(n));

function chatEntry(n: number): ChatLogDocument {
  const start = new Date(Date.UTC(2026, 0, 1) + Math.floor((n / ENTRIES) * 90 * 86_400_000)).toISOString();
  const status = CHAT_STATUSES[n % CHAT_STATUSES.length]!;
  const replied = status === 'Read' && n % 2 === 0;
  return {
    id: `chat-${n}`,
    organizationId: 'org-1',
    type: 'chat',
    date: start.slice(0, 10),
    loan_id: `L${n % 200_000}`,
    start_time: start,
    end_time: null,
    campaign_name: `Campaign ${n % 20}`,
    campaign_id: `campaign-${n % 20}`,
    name: `Customer ${n % 200_000}`,
    duration: 0,
    direction: 'outbound',
    from: null,
    to: `+9198${String(10_000_000 + (n % 200_000))}`,
    status,
    disposition: replied ? DISPOSITIONS[n % DISPOSITIONS.length]! : null,
    extracted_data: {},
    agent_id: `agent-${n % 50}`,
    disposition_id: 'group-1',
    summary: replied ? 'The customer promised to pay; the agent answered.' : '',
    message_id: `chat-${n}`,
    platform_msg_id: `bmsg.${n.toString(16).padStart(32, '0')}`,
    conversation: [
      {
        role: 'assistant',
        content: `Hello Customer ${n % 200_000}, your EMI of ₹8,500 is due on 2026-04-05.`,
        timestamp: start,
      },
      ...(replied
        ? [
            { role: 'user' as const, content: 'Okay, I will pay by Friday.', timestamp: start },
            { role: 'assistant' as const, content: 'Thank you, I have noted your payment.', timestamp: start },
          ]
        : []),
    ],
    errors:
      status === 'Failed'
        ? [
            {
              code: 4002,
              title: 'Recipient not on the chat platform',
              message: 'The recipient number has no account on the chat platform.',
              href: 'docs/chat-errors.md#4002',
              error_data: { details: 'No chat account.' },
            },
          ]
        : [],
    template_id: 'template-1',
  };
}

function callEntry(n: number): CallLogDocument {
  const start = new Date(Date.UTC(2026, 0, 1) + Math.floor((n / ENTRIES) * 90 * 86_400_000)).toISOString();
  // Calls are the entries n % 3 = 0 or 1: counting their statuses by n / 3 gives them every status.
  const status = STATUSES[Math.floor(n / 3) % STATUSES.length]!;
  return {
    id: `call-${n}`,
    organizationId: 'org-1',
    type: 'call',
    date: start.slice(0, 10),
    loan_id: `L${n % 200_000}`,
    start_time: start,
    end_time: start,
    campaign_name: `Campaign ${n % 20}`,
    campaign_id: `campaign-${n % 20}`,
    name: `Customer ${n % 200_000}`,
    duration: status === 'Completed' ? 60 + (n % 120) : 0,
    direction: 'outbound',
    from: `+9180000000${String(n % 10).padStart(2, '0')}`,
    to: `+9198${String(10_000_000 + (n % 200_000))}`,
    status,
    disposition: status === 'Completed' ? DISPOSITIONS[n % DISPOSITIONS.length]! : null,
    extracted_data: { intent: 'promise_to_pay' },
    agent_id: `agent-${n % 50}`,
    disposition_id: 'group-1',
    summary: 'Customer agreed to pay the EMI by the due date.',
    call_id: `call-${n}`,
    transcript_id: `tr-${n}`,
    recording_id: `rec-${n}`,
  };
}

const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function main() {
  console.log(
    `entries: ${ENTRIES.toLocaleString('en')} (two calls for each chat), one organization; ${REPEAT} runs of each query; personal data encryption ${encryptionArg()} (no effect on the read model)`,
  );
  const dir = tempDir('bench-logs-');
  const reads = new SqliteReadStore(join(dir.path, 'read.db'));
  await reads.collection(callLogsProjection.collection);
  const t0 = performance.now();
  for (let start = 0; start < ENTRIES; start += 10_000) {
    const writes = Array.from({ length: Math.min(10_000, ENTRIES - start) }, (_, i) => {
      const doc = entry(start + i);
      return { collection: 'logs', document: { id: doc.id, doc, position: start + i, version: 1 } };
    });
    await reads.commit({ projection: callLogsProjection.name, checkpoint: start, writes });
    sample();
  }
  console.log(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const logs = new LogService(await reads.collection(callLogsProjection.collection));
  const ctx = {
    organizationId: 'org-1',
    organizationType: 'collection' as const,
    actor: 'bench',
    requestId: 'bench',
    scopes: null,
  };

  const queries: [string, LogFilters, 'list' | 'count' | 'chat'][] = [
    ['first page, no filter', { page: 1 }, 'list'],
    ['type=call', { page: 1, type: 'call' }, 'list'],
    ['type=chat', { page: 1, type: 'chat' }, 'list'],
    ['status=No Contact (calls)', { page: 1, status: 'No Contact' }, 'list'],
    ['status=Read (chats)', { page: 1, status: 'Read' }, 'list'],
    ['status=Failed (both)', { page: 1, status: 'Failed' }, 'list'],
    ['type=chat + status=Failed', { page: 1, type: 'chat', status: 'Failed' }, 'list'],
    ['disposition', { page: 1, disposition: 'Call back' }, 'list'],
    ['from_phone', { page: 1, from_phone: '+918000000003' }, 'list'],
    ['phone (one customer)', { page: 1, phone: '+919810123456' }, 'list'],
    ['campaign_id', { page: 1, campaign_id: 'campaign-7' }, 'list'],
    ['agent_id', { page: 1, agent_id: 'agent-42' }, 'list'],
    [
      'start_time..end_time (one day)',
      { page: 1, start_time: '2026-02-10T00:00:00Z', end_time: '2026-02-10T23:59:59Z' },
      'list',
    ],
    [
      'campaign + status + agent + time',
      {
        page: 1,
        campaign_id: 'campaign-3',
        status: 'Completed',
        agent_id: 'agent-13',
        start_time: '2026-01-15T00:00:00Z',
        end_time: '2026-03-15T00:00:00Z',
      },
      'list',
    ],
    ['deep page (page 5,000)', { page: 5000 }, 'list'],
    ['count_only, no filter', { page: 1 }, 'count'],
    ['count_only, status', { page: 1, status: 'Failed' }, 'count'],
    ['count_only, type=chat', { page: 1, type: 'chat' }, 'count'],
    [
      'count_only, campaign + time',
      { page: 1, campaign_id: 'campaign-3', start_time: '2026-01-15T00:00:00Z', end_time: '2026-03-15T00:00:00Z' },
      'count',
    ],
    ['chat detail (one message)', { page: 1 }, 'chat'],
  ];
  for (const [label, filters, kind] of queries) {
    const times: number[] = [];
    let result = 0;
    for (let i = 0; i < REPEAT; i++) {
      const t = performance.now();
      if (kind === 'chat')
        result =
          (await logs.chat(ctx, `chat-${3 * ((i * 7919) % Math.floor(ENTRIES / 3)) + 2}`)).conversation instanceof Array
            ? 1
            : 0;
      else result = kind === 'list' ? (await logs.list(ctx, filters)).data.length : await logs.count(ctx, filters);
      times.push(performance.now() - t);
      sample();
    }
    console.log(
      `${label.padEnd(34)} ${kind === 'count' ? `total=${result}`.padEnd(13) : `rows=${result}`}  p50=${pct(times, 50).toFixed(2)} ms  p95=${pct(times, 95).toFixed(2)} ms`,
    );
  }
  console.log(`peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  await reads.close();
  dir.remove();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
