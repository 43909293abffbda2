/**
 * `npm run admin -- <command>`: the administration API for an operator, on the configured stores,
 * printing JSON. Works whether or not the server is running (the server picks up the new events). It
 * does not start the service: it runs on the event store and the services its commands need
 * (admin-composition.ts), and answers from the event store, not from read models.
 *
 * `projections rebuild` and `projections verify` (docs/projection-rebuild.md) work on the read models:
 * progress on stderr, the summary as JSON on stdout; verify exits 1 when a read model differs from
 * what its events make.
 */
import { readFileSync } from 'node:fs';
import { inventoryItems } from '../numbers/schemas';
import { loadConfig } from '../../infrastructure/config/config';
import { validate } from '../http/validation';
import { UnknownProjectionError } from '../../application/rebuild/selection';
import type { VerifyReport } from '../../application/rebuild/verify';
import { createAdminComposition, type AdminComposition } from './admin-composition';
import { progressBar } from './progress-bar';
import { AdjustCreditsBody, expiresInSeconds, IssueTokenBody, RegisterOrganizationBody } from './schemas';

const USAGE = `usage: npm run admin -- <command>
  create-org --name NAME --type collection|lead_generation [--credits N] [--concurrency N]
  get-org ID
  issue-token ID [--scopes a,b,c] [--expires-in 1h] [--subject NAME]
  credits ID AMOUNT
  add-numbers FILE.json   (a JSON array of {number, provider, country_iso, sms_enabled, voice_enabled})
  projections rebuild [NAME...]   rebuild read models (all by default) from the first event, then switch to them
  projections verify [NAME...]    rebuild into a scratch store and print every difference with the live read models`;

function flags(args: string[]): { positional: string[]; named: Record<string, string> } {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--')) named[arg.slice(2)] = args[++i] ?? '';
    else positional.push(arg);
  }
  return { positional, named };
}

/** What a command answers other than success: printed on stdout as well, with its exit code. */
class Outcome {
  constructor(
    readonly body: unknown,
    readonly code: number,
  ) {}
}

async function run(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { positional, named } = flags(rest);
  if (command === 'projections' && !['rebuild', 'verify'].includes(positional[0] ?? ''))
    throw new UsageError(`projections needs rebuild or verify\n${USAGE}`);
  const service = await createAdminComposition(loadConfig());
  const ctx = { organizationId: null, actor: 'admin-cli', requestId: `cli-${Date.now()}` };
  try {
    switch (command) {
      case 'create-org': {
        const body = validate(RegisterOrganizationBody, {
          name: named.name,
          type: named.type,
          ...(named.credits !== undefined && { credits: Number(named.credits) }),
          ...(named.concurrency !== undefined && { concurrencyLimit: Number(named.concurrency) }),
        });
        return await service.organizations.register(ctx, body);
      }
      case 'get-org':
        return await service.organizations.get(required(positional[0], 'ID'));
      case 'issue-token': {
        const body = validate(IssueTokenBody, {
          ...(named.scopes && { scopes: named.scopes.split(',') }),
          ...(named['expires-in'] && { expiresIn: named['expires-in'] }),
          ...(named.subject && { subject: named.subject }),
        });
        return await service.organizations.issueToken(ctx, required(positional[0], 'ID'), {
          ...body,
          expiresInSeconds: expiresInSeconds(body.expiresIn),
        });
      }
      case 'credits': {
        const { amount } = validate(AdjustCreditsBody, { amount: Number(positional[1]) });
        return {
          credits: await service.organizations.adjustCredits(ctx, required(positional[0], 'ID'), amount),
        };
      }
      case 'add-numbers':
        return await service.numbers.stock(
          ctx,
          inventoryItems(JSON.parse(readFileSync(required(positional[0], 'FILE'), 'utf8'))),
        );
      case 'projections':
        return await projections(service, positional[0] as 'rebuild' | 'verify', positional.slice(1));
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await service.close();
  }
}

async function projections(service: AdminComposition, command: 'rebuild' | 'verify', names: string[]) {
  const bar = progressBar();
  try {
    if (command === 'rebuild') {
      let phase = '';
      const summary = await service.projections.rebuild(names, (p) => {
        const force = p.phase !== phase;
        phase = p.phase;
        bar.update({ label: `rebuild ${p.phase}`, events: p.events, position: p.position, head: p.head }, force);
      });
      bar.done();
      return summary;
    }
    const report = await service.projections.verify(names, (p) =>
      bar.update({ label: 'verify', events: p.events, position: p.position, head: p.head }),
    );
    bar.done();
    for (const line of describe(report)) process.stderr.write(`${line}\n`);
    return report.differences.length > 0 ? new Outcome({ success: false, data: report }, 1) : report;
  } catch (error) {
    bar.done();
    if (error instanceof UnknownProjectionError) throw new UsageError(`${error.message}\n${USAGE}`);
    throw error;
  }
}

/** One line per difference, for the operator reading the terminal. */
function describe(report: VerifyReport): string[] {
  const show = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));
  const lines = report.differences.map((d) =>
    d.kind === 'field'
      ? `difference: ${d.collection} ${d.id} ${d.path}: live ${show(d.live)}, rebuilt ${show(d.rebuilt)}`
      : `difference: ${d.collection} ${d.id} ${d.kind === 'missing-in-live' ? 'missing in the live read model' : 'missing in the rebuilt read model'}`,
  );
  const compared = Object.values(report.compared).reduce((a, b) => a + b, 0);
  lines.push(
    `verified ${compared} documents of ${report.projections.length} projections: ${report.differences.length} differences`,
  );
  return lines;
}

class UsageError extends Error {}
const required = (value: string | undefined, name: string): string => {
  if (!value) throw new UsageError(`${name} is required\n${USAGE}`);
  return value;
};

run(process.argv.slice(2)).then(
  (result) => {
    if (result instanceof Outcome) {
      process.stdout.write(JSON.stringify(result.body, null, 2) + '\n');
      process.exitCode = result.code;
    } else process.stdout.write(JSON.stringify({ success: true, data: result }, null, 2) + '\n');
  },
  (error) => {
    const body =
      error instanceof UsageError
        ? { success: false, message: error.message }
        : { success: false, message: error.message, ...(error.extra ?? error.details ?? {}) };
    process.stderr.write(JSON.stringify(body, null, 2) + '\n');
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
