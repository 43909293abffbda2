/** Configuration from the environment (decisions.md section 8), read once at start. */
import { chmodSync, linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ownerOnlyDirectory } from '../shared/owner-only';
import { callingHoursProblems, DEFAULT_CALLING_HOURS, type CallingHours } from '../../domain/campaigns/schedule';

export type Config = {
  port: number;
  dataDir: string;
  eventStore: 'sqlite' | 'memory' | 'eventstoredb';
  eventStoreDbUrl: string | null;
  readStore: 'sqlite' | 'memory' | 'mongodb';
  mongoDbUrl: string | null;
  mongoDbName: string;
  jwtSecret: string;
  jwt: { jwksUrl: string | null; issuer: string | null; audience: string | null };
  adminToken: string;
  /** Where generated secrets were kept, when they were generated. */
  secretsFile: string | null;
  simulationSpeed: number;
  /** SIMULATE_INBOUND_PER_MINUTE: simulated inbound calls and chats to numbers with an inbound agent (0: none; docs/inbound.md). */
  simulateInboundPerMinute: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  services: ReadonlySet<'speech' | 'agent'>;
  maxBodyBytes: number;
  /** Requests per organization on the API behind its tokens, per process: `RATE_LIMIT_PER_SECOND`, `RATE_LIMIT_BURST`. */
  rateLimit: { perSecond: number; burst: number };
  /** Requests per remote address on /admin/v1 (`ADMIN_RATE_LIMIT_PER_SECOND`, `ADMIN_RATE_LIMIT_BURST`), per process. */
  adminRateLimit: { perSecond: number; burst: number };
  /** WhatsApp verify handshakes per remote address (`WHATSAPP_VERIFY_RATE_LIMIT_PER_SECOND`, `_BURST`), per process. */
  whatsappVerifyRateLimit: { perSecond: number; burst: number };
  /**
   * Sockets not yet authenticated (a speech handshake being checked, a media stream before its signed
   * `start`), per process and per remote address: `UNAUTHENTICATED_SOCKETS_MAX`, `UNAUTHENTICATED_SOCKETS_PER_ADDRESS`.
   */
  unauthenticatedSockets: { max: number; perAddress: number };
  /** How long a Twilio media stream may take to send a `start` whose signature holds (`MEDIA_STREAM_START_TIMEOUT_MS`). */
  mediaStreamStartTimeoutMs: number;
  /** How long a speech socket may run no request and send nothing before it is closed (`SPEECH_SOCKET_IDLE_MS`). */
  speechSocketIdleMs: number;
  /** Open speech sockets and live feeds per organization, per process (`SPEECH_SOCKETS_PER_ORGANIZATION`, `LIVE_FEEDS_PER_ORGANIZATION`). */
  speechSocketsPerOrganization: number;
  liveFeedsPerOrganization: number;
  /** Bulk requests in progress at once, per organization and per process (`BULK_REQUESTS_PER_ORGANIZATION`, `_PER_PROCESS`). */
  bulkRequests: { perOrganization: number; perProcess: number };
  /** How long a client may take to send a whole request, headers and body (`REQUEST_TIMEOUT_MS`): 408 after that. */
  requestTimeoutMs: number;
  readYourWritesTimeoutMs: number;
  /** Longest speech text, in characters. */
  maxSpeechChars: number;
  /** How long an admitted speech request holds its concurrency slot (`SPEECH_LEASE_MS`); it is cut before that. */
  speechLeaseMs: number;
  /** METRICS_TOKEN: when set, /metrics answers only `Authorization: Bearer <it>` (401 otherwise); unset, it is open. */
  metricsToken: string | null;
  /** Shared secret carriers' webhooks present on /carrier/v1; unset refuses them all. */
  carrierWebhookSecret: string | null;
  /** Shared secret chat platforms' webhooks present on /chat/v1; unset refuses them all. */
  chatWebhookSecret: string | null;
  /**
   * PUBLIC_URL: the service's address as real providers reach it (`https://voice.example.com`), from
   * which their webhook and media stream URLs are made and their signatures checked; null: unset, and
   * no call or message goes through a real provider (docs/providers.md).
   */
  publicUrl: string | null;
  /** Where the real providers' APIs are: `TWILIO_API_URL`, `WHATSAPP_GRAPH_URL` (a stand-in's, in tests) and the Graph API version. */
  twilioApiUrl: string;
  whatsappGraphUrl: string;
  whatsappGraphVersion: string;
  /** Speech worker threads (default: one per CPU) and warm-up rounds at start (default 3). */
  speechWorkers: number | undefined;
  speechWarmUpRounds: number | undefined;
  /** SPEECH_ENGINE: which eSpeak NG build speaks (see infrastructure/speech/engine-kind.ts). */
  speechEngine: 'native' | 'js' | 'auto';
  /** Outbound webhooks: first retry delay (doubling after each failed attempt), attempts before giving up, request timeout. */
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  webhookTimeoutMs: number;
  /** How long an attempt's claim is reserved to its claimer (at least 3 × the timeout): a claimer that died gives it up then. */
  webhookLeaseMs: number;
  /** Lets webhooks reach loopback, private and reserved addresses (off: such destinations are refused, SSRF). */
  webhookAllowPrivateNetworks: boolean;
  /** Seconds without activity after which an open chat is closed (reason `inactive`); real time, not scaled by SIMULATION_SPEED. */
  chatInactivityTimeoutSeconds: number;
  /** Processes of the service on this machine (`WORKERS`; `auto` = one per CPU), sharing the port and the stores. */
  workers: number;
  /** How long a replica's lease on a piece of background work lasts without renewal (a dead replica's work waits this long). */
  leaseTtlMs: number;
  /** How old a queued call or requested chat its dispatcher passed by must be before the reconciler dispatches it. */
  reconcileAfterMs: number;
  /** The calling hours of organizations whose own were never set, by type (docs/campaign-schedules.md). */
  callingHours: { collection: CallingHours; lead_generation: CallingHours };
  /** The pace of campaigns that name none; 0: no limit of that kind (docs/campaign-schedules.md). */
  campaignPacing: { maxConcurrentCalls: number; callsPerMinute: number };
  /** How often the retention sweep erases conversation content past its organization's retention (docs/privacy.md). */
  privacyRetentionSweepMs: number;
  /** Live event feeds: the interval of their keep-alive comments, and how long a client may read nothing before it is let go. */
  liveFeedKeepAliveMs: number;
  liveFeedStallMs: number;
  /** Origins whose browsers may call the API across origins (`CORS_ORIGINS`, comma-separated); none by default. */
  corsOrigins: readonly string[];
  /** How long a stop (SIGTERM) lets requests in flight finish before it cuts them (`SHUTDOWN_TIMEOUT_MS`). */
  shutdownTimeoutMs: number;
  /**
   * PERSONAL_DATA_ENCRYPTION: `on` (default) seals the personal fields of events with keys kept outside
   * the log, so erasing a key erases them (docs/privacy.md); `off` stores new events in the clear (an
   * escape hatch, and the benchmarks' comparison). Events sealed before stay readable either way.
   */
  personalDataEncryption: boolean;
  production: boolean;
};

export class ConfigError extends Error {}

const isCount = (n: number) => Number.isInteger(n) && n >= 0 && n <= 1_000_000;

/** `HH:MM-HH:MM`, as calling hours. */
function hoursFrom(name: string, value: string | undefined, fallback: CallingHours): CallingHours {
  if (value === undefined || value === '') return fallback;
  const [start = '', end = ''] = value.split('-');
  if (callingHoursProblems({ start, end }).length > 0)
    throw new ConfigError(`${name} must be HH:MM-HH:MM with the start first (got "${value}")`);
  return { start, end };
}

const isPositiveInteger = (n: number) => Number.isInteger(n) && n >= 1;

const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T => {
  if (value === undefined || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
};

const numberFrom = (
  name: string,
  value: string | undefined,
  fallback: number,
  check: (n: number) => boolean,
): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new ConfigError(`${name} is not valid: "${value}"`);
  return n;
};

/** `https://app.example.com,http://localhost:3000`: each an origin exactly as a browser sends it (no path, no trailing slash). */
function originsFrom(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
      throw new ConfigError(`CORS_ORIGINS must list origins such as https://app.example.com (got "${origin}")`);
  }
  return origins;
}

/** An http(s) base address without a trailing slash, query or fragment (`https://voice.example.com/base`); null when unset. */
function baseUrlFrom(name: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  let parsed: URL | null = null;
  try {
    parsed = new URL(value.trim());
  } catch {
    parsed = null;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash || parsed.username)
    throw new ConfigError(`${name} must be an http(s) address such as https://voice.example.com (got "${value}")`);
  return parsed.href.replace(/\/+$/, '');
}

function graphVersionFrom(value: string | undefined): string {
  if (value === undefined || value === '') return 'v21.0';
  if (!/^v\d{1,3}\.\d{1,2}$/.test(value))
    throw new ConfigError(`WHATSAPP_GRAPH_VERSION must look like v21.0 (got "${value}")`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.DATA_DIR || './data');
  const eventStore = oneOf('EVENT_STORE', env.EVENT_STORE, ['sqlite', 'memory', 'eventstoredb'] as const, 'sqlite');
  const readStore = oneOf('READ_STORE', env.READ_STORE, ['sqlite', 'memory', 'mongodb'] as const, 'sqlite');
  if (eventStore === 'eventstoredb' && !env.EVENTSTOREDB_URL)
    throw new ConfigError('EVENTSTOREDB_URL is required when EVENT_STORE=eventstoredb');
  if (readStore === 'mongodb' && !env.MONGODB_URL)
    throw new ConfigError('MONGODB_URL is required when READ_STORE=mongodb');
  const secrets = resolveSecrets(env, dataDir, production);
  // A key set signs tokens for many audiences (and, at a shared provider, many tenants): the issuer and
  // the audience are what make a token one for this service.
  if (env.JWT_JWKS_URL && (!env.JWT_ISSUER || !env.JWT_AUDIENCE))
    throw new ConfigError(
      'JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE: tokens of the identity provider are checked against both',
    );
  const services = new Set(
    (env.SERVICES || 'speech,agent')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  for (const s of services)
    if (s !== 'speech' && s !== 'agent') throw new ConfigError(`SERVICES may list speech and agent (got "${s}")`);
  return {
    port: numberFrom('PORT', env.PORT, 8080, (n) => Number.isInteger(n) && n >= 0 && n < 65536),
    dataDir,
    eventStore,
    eventStoreDbUrl: env.EVENTSTOREDB_URL || null,
    readStore,
    mongoDbUrl: env.MONGODB_URL || null,
    mongoDbName: env.MONGODB_DB || 'voice_agent',
    jwtSecret: secrets.jwtSecret,
    jwt: { jwksUrl: env.JWT_JWKS_URL || null, issuer: env.JWT_ISSUER || null, audience: env.JWT_AUDIENCE || null },
    adminToken: secrets.adminToken,
    secretsFile: secrets.file,
    simulationSpeed: numberFrom('SIMULATION_SPEED', env.SIMULATION_SPEED, 1, (n) => n >= 0),
    simulateInboundPerMinute: numberFrom(
      'SIMULATE_INBOUND_PER_MINUTE',
      env.SIMULATE_INBOUND_PER_MINUTE,
      0,
      (n) => n >= 0 && n <= 6000,
    ),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, ['debug', 'info', 'warn', 'error'] as const, 'info'),
    services: services as ReadonlySet<'speech' | 'agent'>,
    maxBodyBytes: numberFrom('MAX_BODY_BYTES', env.MAX_BODY_BYTES, 16 * 1024 * 1024, (n) => n > 0),
    rateLimit: {
      perSecond: numberFrom('RATE_LIMIT_PER_SECOND', env.RATE_LIMIT_PER_SECOND, 200, (n) => n > 0),
      burst: numberFrom('RATE_LIMIT_BURST', env.RATE_LIMIT_BURST, 400, (n) => Number.isInteger(n) && n >= 1),
    },
    adminRateLimit: {
      perSecond: numberFrom('ADMIN_RATE_LIMIT_PER_SECOND', env.ADMIN_RATE_LIMIT_PER_SECOND, 100, (n) => n > 0),
      burst: numberFrom('ADMIN_RATE_LIMIT_BURST', env.ADMIN_RATE_LIMIT_BURST, 200, isPositiveInteger),
    },
    whatsappVerifyRateLimit: {
      perSecond: numberFrom(
        'WHATSAPP_VERIFY_RATE_LIMIT_PER_SECOND',
        env.WHATSAPP_VERIFY_RATE_LIMIT_PER_SECOND,
        1,
        (n) => n > 0,
      ),
      burst: numberFrom(
        'WHATSAPP_VERIFY_RATE_LIMIT_BURST',
        env.WHATSAPP_VERIFY_RATE_LIMIT_BURST,
        10,
        isPositiveInteger,
      ),
    },
    unauthenticatedSockets: {
      max: numberFrom('UNAUTHENTICATED_SOCKETS_MAX', env.UNAUTHENTICATED_SOCKETS_MAX, 1000, isPositiveInteger),
      perAddress: numberFrom(
        'UNAUTHENTICATED_SOCKETS_PER_ADDRESS',
        env.UNAUTHENTICATED_SOCKETS_PER_ADDRESS,
        100,
        isPositiveInteger,
      ),
    },
    mediaStreamStartTimeoutMs: numberFrom(
      'MEDIA_STREAM_START_TIMEOUT_MS',
      env.MEDIA_STREAM_START_TIMEOUT_MS,
      10_000,
      (n) => Number.isInteger(n) && n >= 100,
    ),
    speechSocketIdleMs: numberFrom(
      'SPEECH_SOCKET_IDLE_MS',
      env.SPEECH_SOCKET_IDLE_MS,
      300_000,
      (n) => Number.isInteger(n) && n >= 100,
    ),
    speechSocketsPerOrganization: numberFrom(
      'SPEECH_SOCKETS_PER_ORGANIZATION',
      env.SPEECH_SOCKETS_PER_ORGANIZATION,
      100,
      isPositiveInteger,
    ),
    liveFeedsPerOrganization: numberFrom(
      'LIVE_FEEDS_PER_ORGANIZATION',
      env.LIVE_FEEDS_PER_ORGANIZATION,
      50,
      isPositiveInteger,
    ),
    bulkRequests: {
      perOrganization: numberFrom(
        'BULK_REQUESTS_PER_ORGANIZATION',
        env.BULK_REQUESTS_PER_ORGANIZATION,
        2,
        isPositiveInteger,
      ),
      perProcess: numberFrom('BULK_REQUESTS_PER_PROCESS', env.BULK_REQUESTS_PER_PROCESS, 4, isPositiveInteger),
    },
    requestTimeoutMs: numberFrom(
      'REQUEST_TIMEOUT_MS',
      env.REQUEST_TIMEOUT_MS,
      60_000,
      (n) => Number.isInteger(n) && n >= 100,
    ),
    readYourWritesTimeoutMs: numberFrom(
      'READ_YOUR_WRITES_TIMEOUT_MS',
      env.READ_YOUR_WRITES_TIMEOUT_MS,
      5000,
      (n) => n >= 0,
    ),
    metricsToken: env.METRICS_TOKEN || null,
    carrierWebhookSecret: env.CARRIER_WEBHOOK_SECRET || null,
    chatWebhookSecret: env.CHAT_WEBHOOK_SECRET || null,
    publicUrl: baseUrlFrom('PUBLIC_URL', env.PUBLIC_URL),
    twilioApiUrl: baseUrlFrom('TWILIO_API_URL', env.TWILIO_API_URL) ?? 'https://api.twilio.com',
    whatsappGraphUrl: baseUrlFrom('WHATSAPP_GRAPH_URL', env.WHATSAPP_GRAPH_URL) ?? 'https://graph.facebook.com',
    whatsappGraphVersion: graphVersionFrom(env.WHATSAPP_GRAPH_VERSION),
    maxSpeechChars: numberFrom('MAX_SPEECH_CHARS', env.MAX_SPEECH_CHARS, 5000, (n) => Number.isInteger(n) && n > 0),
    speechLeaseMs: numberFrom('SPEECH_LEASE_MS', env.SPEECH_LEASE_MS, 600_000, (n) => Number.isInteger(n) && n >= 1000),
    speechWorkers: env.SPEECH_WORKERS
      ? numberFrom('SPEECH_WORKERS', env.SPEECH_WORKERS, 0, (n) => Number.isInteger(n) && n > 0)
      : undefined,
    // `js` until the native engine's output is byte-repeatable (docs/speech-engine.md).
    speechEngine: oneOf('SPEECH_ENGINE', env.SPEECH_ENGINE, ['native', 'js', 'auto'] as const, 'auto'),
    speechWarmUpRounds: env.SPEECH_WARM_UP_ROUNDS
      ? numberFrom('SPEECH_WARM_UP_ROUNDS', env.SPEECH_WARM_UP_ROUNDS, 0, (n) => Number.isInteger(n) && n >= 0)
      : undefined,
    webhookRetryBaseMs: numberFrom(
      'WEBHOOK_RETRY_BASE_MS',
      env.WEBHOOK_RETRY_BASE_MS,
      30_000,
      (n) => Number.isInteger(n) && n > 0,
    ),
    webhookMaxAttempts: numberFrom(
      'WEBHOOK_MAX_ATTEMPTS',
      env.WEBHOOK_MAX_ATTEMPTS,
      10,
      (n) => Number.isInteger(n) && n >= 1 && n <= 100,
    ),
    webhookTimeoutMs: numberFrom(
      'WEBHOOK_TIMEOUT_MS',
      env.WEBHOOK_TIMEOUT_MS,
      10_000,
      (n) => Number.isInteger(n) && n > 0,
    ),
    webhookLeaseMs: numberFrom(
      'WEBHOOK_LEASE_MS',
      env.WEBHOOK_LEASE_MS,
      60_000,
      (n) => Number.isInteger(n) && n >= 1000,
    ),
    webhookAllowPrivateNetworks:
      oneOf(
        'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
        env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        ['true', 'false'] as const,
        'false',
      ) === 'true',
    // 60 s to 30 days; CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT=true lets tests go down to 1 s.
    chatInactivityTimeoutSeconds: numberFrom(
      'CHAT_INACTIVITY_TIMEOUT_SECONDS',
      env.CHAT_INACTIVITY_TIMEOUT_SECONDS,
      86_400,
      (n) =>
        Number.isInteger(n) && n >= (env.CHAT_INACTIVITY_ALLOW_SHORT_TIMEOUT === 'true' ? 1 : 60) && n <= 2_592_000,
    ),
    workers:
      env.WORKERS === 'auto'
        ? availableParallelism()
        : numberFrom('WORKERS', env.WORKERS, 1, (n) => Number.isInteger(n) && n >= 1 && n <= 256),
    leaseTtlMs: numberFrom('LEASE_TTL_MS', env.LEASE_TTL_MS, 10_000, (n) => Number.isInteger(n) && n >= 500),
    campaignPacing: {
      maxConcurrentCalls: numberFrom('CAMPAIGN_MAX_CONCURRENT_CALLS', env.CAMPAIGN_MAX_CONCURRENT_CALLS, 10, isCount),
      callsPerMinute: numberFrom('CAMPAIGN_CALLS_PER_MINUTE', env.CAMPAIGN_CALLS_PER_MINUTE, 30, isCount),
    },
    callingHours: {
      collection: hoursFrom('CALLING_HOURS_COLLECTION', env.CALLING_HOURS_COLLECTION, DEFAULT_CALLING_HOURS.collection),
      lead_generation: hoursFrom(
        'CALLING_HOURS_LEAD_GENERATION',
        env.CALLING_HOURS_LEAD_GENERATION,
        DEFAULT_CALLING_HOURS.lead_generation,
      ),
    },
    reconcileAfterMs:
      1000 *
      numberFrom('RECONCILE_AFTER_SECONDS', env.RECONCILE_AFTER_SECONDS, 300, (n) => Number.isInteger(n) && n >= 1),
    privacyRetentionSweepMs:
      1000 *
      numberFrom('PRIVACY_RETENTION_SWEEP_SECONDS', env.PRIVACY_RETENTION_SWEEP_SECONDS, 3600, isPositiveInteger),
    liveFeedKeepAliveMs: numberFrom('LIVE_FEED_KEEP_ALIVE_MS', env.LIVE_FEED_KEEP_ALIVE_MS, 15_000, isPositiveInteger),
    liveFeedStallMs: numberFrom('LIVE_FEED_STALL_MS', env.LIVE_FEED_STALL_MS, 30_000, isPositiveInteger),
    corsOrigins: originsFrom(env.CORS_ORIGINS),
    shutdownTimeoutMs: numberFrom(
      'SHUTDOWN_TIMEOUT_MS',
      env.SHUTDOWN_TIMEOUT_MS,
      30_000,
      (n) => Number.isInteger(n) && n >= 0,
    ),
    personalDataEncryption:
      oneOf('PERSONAL_DATA_ENCRYPTION', env.PERSONAL_DATA_ENCRYPTION, ['on', 'off'] as const, 'on') === 'on',
    production,
  };
}

const MIN_PRODUCTION_SECRET_BYTES = 32;

/**
 * JWT_SECRET and ADMIN_TOKEN are required in production (the secret at least 32 bytes long). Elsewhere, when unset, they are generated
 * once and kept in DATA_DIR/secrets.json (readable by the owner only) so restarts keep tokens valid.
 */
function resolveSecrets(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  production: boolean,
): { jwtSecret: string; adminToken: string; file: string | null } {
  // HS256 with a short key can be guessed offline from any token: 32 bytes is the hash's own size.
  const secretBytes = Buffer.byteLength(env.JWT_SECRET ?? '', 'utf8');
  if (production && env.JWT_SECRET && secretBytes < MIN_PRODUCTION_SECRET_BYTES)
    throw new ConfigError(
      `JWT_SECRET must be at least ${MIN_PRODUCTION_SECRET_BYTES} bytes when NODE_ENV=production (got ${secretBytes})`,
    );
  if (env.JWT_SECRET && env.ADMIN_TOKEN) return { jwtSecret: env.JWT_SECRET, adminToken: env.ADMIN_TOKEN, file: null };
  if (production) throw new ConfigError('JWT_SECRET and ADMIN_TOKEN are required when NODE_ENV=production');
  ownerOnlyDirectory(dataDir);
  const file = join(dataDir, 'secrets.json');
  const generated = {
    jwtSecret: randomBytes(32).toString('base64url'),
    adminToken: `adm_${randomBytes(24).toString('base64url')}`,
  };
  // Processes started together on a fresh DATA_DIR agree on one set: the first to link its file wins.
  const kept = readSecrets(file) ?? createOnce(file, generated);
  const jwtSecret = env.JWT_SECRET || kept.jwtSecret || generated.jwtSecret;
  const adminToken = env.ADMIN_TOKEN || kept.adminToken || generated.adminToken;
  if (kept.jwtSecret !== jwtSecret || kept.adminToken !== adminToken)
    replaceAtomically(file, JSON.stringify({ jwtSecret, adminToken }, null, 2));
  return { jwtSecret, adminToken, file };
}

type Secrets = { jwtSecret?: string; adminToken?: string };

function readSecrets(file: string): Secrets | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Written whole beside the file, then linked into place: a reader never sees half of it, and only one link succeeds. */
function createOnce(file: string, secrets: Secrets): Secrets {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  try {
    linkSync(draft, file);
    return secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readSecrets(file) ?? {};
  } finally {
    unlinkSync(draft);
  }
}

function replaceAtomically(file: string, text: string): void {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, text, { mode: 0o600 });
  chmodSync(draft, 0o600);
  renameSync(draft, file);
}
