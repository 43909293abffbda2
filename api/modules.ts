/**
 * Every feature of the service, in the order they are built: a module may use what the modules before
 * it provide (api/provided.ts). Adding a feature is adding its module here (docs/adding-a-feature.md).
 */
import type { EventStore } from '../application/ports/event-store';
import type { DerivedFeed } from '../application/rebuild/generation-builder';
import type { AnyProjection } from '../projections/projection';
import { adminModule } from './admin/module';
import { agentsModule } from './agents/module';
import { analyticsModule } from './analytics/module';
import { auditModule } from './audit/module';
import { blacklistModule } from './blacklist/module';
import { callsModule } from './calls/module';
import { campaignsModule } from './campaigns/module';
import { chatsModule } from './chats/module';
import { customersModule } from './customers/module';
import { dispositionsModule } from './dispositions/module';
import { eventsModule } from './events/module';
import { logsModule } from './logs/module';
import type { ModuleDefinition } from './module';
import { numbersModule } from './numbers/module';
import { opsModule } from './ops/module';
import { organizationsModule } from './organizations/module';
import { privacyModule } from './privacy/module';
import { providersModule } from './providers/module';
import { speechModule } from './speech/module';
import { webhooksModule } from './webhooks/module';
import { workflowsModule } from './workflows/module';

export const MODULES: readonly ModuleDefinition[] = [
  organizationsModule,
  providersModule,
  numbersModule,
  blacklistModule,
  dispositionsModule,
  agentsModule,
  speechModule,
  callsModule,
  chatsModule,
  workflowsModule,
  customersModule,
  campaignsModule,
  webhooksModule,
  logsModule,
  auditModule,
  eventsModule,
  analyticsModule,
  // After every module whose read models hold personal data: it reads them, and they follow its erasures.
  privacyModule,
  adminModule,
  opsModule,
];

/** The modules as they run over `events` (`ModuleDefinition.over`). */
export const modulesOver = (events: EventStore): readonly ModuleDefinition[] =>
  MODULES.map((module) => module.over?.(events) ?? module);

/** Every read model the service keeps over `events`: those of every module, in the order of the modules. */
export const projectionsOver = (events: EventStore) => modulesOver(events).flatMap((module) => module.projections);

/**
 * Every read model over `events` that `projections rebuild|verify` builds: the projection runner's, then
 * those reading a feed derived from the log (`ModuleDefinition.derived`), each with a new feed of it.
 */
export function readModelsOver(events: EventStore): { all: AnyProjection[]; feeds: Map<string, DerivedFeed> } {
  const modules = modulesOver(events);
  const all = modules.flatMap((module) => module.projections);
  const feeds = new Map<string, DerivedFeed>();
  for (const derived of modules.flatMap((module) => module.derived ?? [])) {
    const feed = derived.feed(events);
    for (const projection of derived.projections) {
      all.push(projection);
      feeds.set(projection.name, feed);
    }
  }
  return { all, feeds };
}
