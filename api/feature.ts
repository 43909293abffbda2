/**
 * A feature of the agent interface as the composition root wires it: its process managers, its
 * routers, the inbound webhook routes of its providers, and what it runs in the background.
 */
import type { RequestHandler, Router } from 'express';
import type { ProcessManager } from '../application/process-manager';
import type { Route } from './ops/openapi';

export type Feature = {
  /** Event-driven steps with side effects; agent processes run them (application/process-manager.ts). */
  managers: readonly ProcessManager[];
  /** Routers under `/api/v1`, behind the organization token. */
  routes: readonly Router[];
  /** Providers' inbound webhooks, mounted at `path` from the root with their own authentication, which runs before `body` reads the request body. */
  inbound: readonly { path: string; router: (body: RequestHandler) => Router }[];
  /** The feature's operations in /openapi.json. */
  openapi: readonly Route[];
  /** Background work of agent processes (timers, deliveries), started after the process managers. */
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
};

export const emptyFeature = (): Feature => ({ managers: [], routes: [], inbound: [], openapi: [] });
