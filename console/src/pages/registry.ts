/**
 * The console's pages: where each lives, what it needs of the token, and its code, loaded when the
 * page is first opened (the charts and the speech player do not weigh on the first page).
 */
import type { ComponentType } from 'preact';

export type PageModule = { default: ComponentType };

export type PageEntry = {
  path: string;
  title: string;
  /** Any one of these scopes opens the page (the API's own scopes for what the page reads). */
  scopes: readonly string[];
  load: () => Promise<PageModule>;
};

export const PAGES: readonly PageEntry[] = [
  {
    path: '/campaigns',
    title: 'Campaigns',
    scopes: ['campaigns:read', 'campaigns:write'],
    load: () => import('./campaigns'),
  },
  { path: '/logs', title: 'Logs', scopes: ['logs:read'], load: () => import('./logs') },
  { path: '/analytics', title: 'Analytics', scopes: ['analytics:read'], load: () => import('./analytics') },
  { path: '/speech', title: 'Speech', scopes: ['speech'], load: () => import('./speech') },
  { path: '/audit', title: 'Audit trail', scopes: ['audit:read'], load: () => import('./audit') },
  {
    path: '/dispositions',
    title: 'Dispositions',
    scopes: ['dispositions:read', 'dispositions:write'],
    load: () => import('./dispositions'),
  },
  { path: '/agents', title: 'Agents', scopes: ['agents:write', 'campaigns:read'], load: () => import('./agents') },
  { path: '/numbers', title: 'Numbers', scopes: ['numbers:read', 'numbers:write'], load: () => import('./numbers') },
  {
    path: '/blacklist',
    title: 'Blacklist',
    scopes: ['blacklist:write', 'logs:read'],
    load: () => import('./blacklist'),
  },
  {
    path: '/workflows',
    title: 'Workflows',
    scopes: ['campaigns:read', 'campaigns:write'],
    load: () => import('./workflows'),
  },
  {
    path: '/webhooks',
    title: 'Webhooks',
    scopes: ['campaigns:read', 'campaigns:write'],
    load: () => import('./webhooks'),
  },
];
