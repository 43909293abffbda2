import { Type } from '@sinclair/typebox';
import { validationFailed } from '../http/errors';
import { StringEnum } from '../http/schema';

export const SCOPES = [
  'logs:read',
  'customers:write',
  'campaigns:read',
  'campaigns:write',
  'dispositions:read',
  'dispositions:write',
  'blacklist:write',
  'numbers:read',
  'numbers:write',
  'providers:read',
  'providers:write',
  'calls:write',
  'chat:write',
  'agents:write',
  'speech',
  'audit:read',
  'analytics:read',
  'privacy:erase',
  'privacy:export',
] as const;

/** The longest a token may live: ten years. */
export const MAX_TOKEN_SECONDS = 315_360_000;

export const RegisterOrganizationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  type: StringEnum(['collection', 'lead_generation']),
  credits: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
  concurrencyLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
});

export const IssueTokenBody = Type.Object({
  scopes: Type.Optional(Type.Array(StringEnum(SCOPES), { maxItems: SCOPES.length })),
  expiresIn: Type.Optional(
    Type.Union([
      Type.String({ pattern: '^[1-9][0-9]{0,8}[smhd]?$' }),
      Type.Integer({ minimum: 1, maximum: MAX_TOKEN_SECONDS }),
    ]),
  ),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

const hhmm = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: '`HH:MM`, 24-hour' });
/** The hours the organization's customers may be called in, their local time (docs/campaign-schedules.md). */
export const CallingHoursBody = Type.Object({
  start: hhmm,
  end: Type.String({
    pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$',
    description: '`HH:MM`, 24-hour; `24:00`: midnight',
  }),
});

export const AdjustCreditsBody = Type.Object({ amount: Type.Integer({ minimum: -1e12, maximum: 1e12 }) });

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** "90", "90s", "15m", "1h", "7d" or a number of seconds; the default is one day; at most ten years. */
export function expiresInSeconds(value: string | number | undefined): number {
  if (value === undefined) return 86400;
  const unit = typeof value === 'string' && /[smhd]$/.test(value) ? value.slice(-1) : 's';
  const seconds = typeof value === 'number' ? value : Number.parseInt(value, 10) * UNIT_SECONDS[unit]!;
  if (seconds > MAX_TOKEN_SECONDS) throw validationFailed(['expiresIn must be at most 10 years (315360000 seconds)']);
  return seconds;
}

/** `POST /admin/v1/simulate/inbound`: a simulated caller calls, or writes first to, a number (docs/inbound.md). */
export const SimulateInboundBody = Type.Object(
  {
    number: Type.String({ minLength: 1, maxLength: 32, description: 'The number called, E.164' }),
    channel: StringEnum(['call', 'chat']),
    from: Type.Optional(
      Type.String({
        pattern: '^\\+?[0-9]{7,15}$',
        description: "The caller's number; one of the organization's customers (or a random number) when absent",
      }),
    ),
  },
  { additionalProperties: false },
);
