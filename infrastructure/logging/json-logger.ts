/** Structured logs: one JSON object per line on stdout. */
import type { LogFields, Logger } from '../../application/ports/logger';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

export function jsonLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  base: LogFields = {},
): Logger {
  const threshold = LEVELS[level];
  const log =
    (lvl: LogLevel) =>
    (message: string, fields: LogFields = {}) => {
      if (LEVELS[lvl] < threshold) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, message, ...base, ...fields }));
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
