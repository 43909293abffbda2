/** Reading query parameters strictly: a bad value is a validation error naming the parameter. */
import type { Request } from 'express';
import { clip } from '../../application/clip';
import { validationFailed } from './errors';

export class QueryReader {
  private readonly errors: string[] = [];
  constructor(private readonly req: Request) {}

  private raw(name: string): string | undefined {
    const value = this.req.query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.errors.push(`${name} must be a single value`);
      return undefined;
    }
    return value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined || value === '') return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.errors.push(`${name} must be an integer between ${min} and ${max}`);
      return fallback;
    }
    return Number(value);
  }

  string(name: string, maxLength = 200): string | undefined {
    const value = this.raw(name);
    if (value === undefined || value === '') return undefined;
    if (value.length > maxLength) {
      this.errors.push(`${name} must be at most ${maxLength} characters`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], message?: string): T | undefined {
    const value = this.raw(name);
    if (value === undefined || value === '') return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      this.errors.push(message ?? `${name} must be one of ${allowed.join(', ')}`);
      return undefined;
    }
    return value as T;
  }

  /** `page` (from 1, default 1) and `limit` (1 to 100, default 10), as every paged list reads them. */
  paging(): { page: number; limit: number } {
    return { page: this.int('page', 1, 1, 1_000_000), limit: this.int('limit', 10, 1, 100) };
  }

  /** A paged list searched by name: `page`, `limit` and `search`. */
  pagedSearch(): { page: number; limit: number; search: string | undefined } {
    return { ...this.paging(), search: this.string('search') };
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.oneOf(name, ['true', 'false'] as const);
    return value === undefined ? fallback : value === 'true';
  }

  /** Refuses every parameter not in `known`, naming it (for endpoints whose callers gain nothing from a silently ignored typo). */
  onlyKnown(known: readonly string[]): this {
    for (const name of Object.keys(this.req.query))
      if (!known.includes(name))
        this.errors.push(`${clip(name)} is not a known parameter (known: ${known.join(', ')})`);
    return this;
  }

  /** A problem the caller found itself, answered with the others. */
  problem(message: string): void {
    this.errors.push(message);
  }

  /** Throws the collected validation errors, if any. */
  done(): void {
    if (this.errors.length > 0) throw validationFailed(this.errors);
  }
}
