/**
 * What `explain('executionStats')` says of a query, in a few numbers: the stages of the winning plan
 * (root first), the indexes it scans, keys and documents examined, documents returned, and whether it
 * sorts in memory. The plan is a tree of stages (`inputStage`, or `inputStages` for several children);
 * with the slot-based engine (MongoDB 7 for some queries, 8 by default) it sits under
 * `winningPlan.queryPlan`. Used by the explain script (bench/mongodb-explain.ts) and the container suite.
 */
import type { Document } from 'mongodb';

export type PlanSummary = {
  stages: string[];
  indexes: string[];
  keysExamined: number;
  docsExamined: number;
  returned: number;
  millis: number;
  /** A SORT stage: every match is read and sorted before the page is cut. */
  sortsInMemory: boolean;
};

export function summarizePlan(explain: Document): PlanSummary {
  const winning = (explain.queryPlanner?.winningPlan ?? {}) as Document;
  const stages: string[] = [];
  const indexes: string[] = [];
  const walk = (stage: Document | undefined) => {
    if (!stage) return;
    if (typeof stage.stage === 'string') stages.push(stage.stage);
    if (typeof stage.indexName === 'string') indexes.push(stage.indexName);
    walk(stage.inputStage as Document | undefined);
    for (const input of (stage.inputStages ?? []) as Document[]) walk(input);
  };
  walk((winning.queryPlan ?? winning) as Document);
  const stats = (explain.executionStats ?? {}) as Document;
  return {
    stages,
    indexes: [...new Set(indexes)],
    keysExamined: Number(stats.totalKeysExamined ?? 0),
    docsExamined: Number(stats.totalDocsExamined ?? 0),
    returned: Number(stats.nReturned ?? 0),
    millis: Number(stats.executionTimeMillis ?? 0),
    sortsInMemory: stages.includes('SORT'),
  };
}
