/**
 * `npm run admin -- <command>`: the administration API for an operator, on the configured stores,
 * printing JSON. Works whether or not the server is running (the server picks up the new events). It
 * does not start the service: it runs on the event store and the services its commands need
 * (admin-composition.ts), and answers from the event store, not from read models.
 */
import { readFileSync } from 'node:fs';
import { inventoryItems } from '../numbers/schemas';
import { loadConfig } from '../../infrastructure/config/config';
import { validate } from '../http/validation';
import { createAdminComposition } from './admin-composition';
import { AdjustCreditsBody, expiresInSeconds, IssueTokenBody, RegisterOrganizationBody } from './schemas';

const USAGE = `usage: npm run admin -- <command>
  create-org --name NAME --type collection|lead_generation [--credits N] [--concurrency N]
  get-org ID
  issue-token ID [--scopes a,b,c] [--expires-in 1h] [--subject NAME]
  credits ID AMOUNT
  add-numbers FILE.json   (a JSON array of {number, provider, country_iso, sms_enabled, voice_enabled})`;

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

async function run(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { positional, named } = flags(rest);
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
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await service.close();
  }
}

class UsageError extends Error {}
const required = (value: string | undefined, name: string): string => {
  if (!value) throw new UsageError(`${name} is required\n${USAGE}`);
  return value;
};

run(process.argv.slice(2)).then(
  (result) => process.stdout.write(JSON.stringify({ success: true, data: result }, null, 2) + '\n'),
  (error) => {
    const body =
      error instanceof UsageError
        ? { success: false, message: error.message }
        : { success: false, message: error.message, ...(error.extra ?? error.details ?? {}) };
    process.stderr.write(JSON.stringify(body, null, 2) + '\n');
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
