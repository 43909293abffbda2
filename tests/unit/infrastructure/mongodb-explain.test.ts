/**
 * The summary of an `explain('executionStats')` answer, on answers shaped as the MongoDB manual shows
 * them ("Explain Results"): the classic engine's plan tree, and the slot-based engine's, which puts the
 * same tree under `winningPlan.queryPlan`. Trimmed to the fields the summary reads.
 */
import { summarizePlan } from '../../../infrastructure/mongodb/mongodb-explain';

const executionStats = { nReturned: 10, executionTimeMillis: 1, totalKeysExamined: 10, totalDocsExamined: 10 };
const indexScan = {
  stage: 'IXSCAN',
  keyPattern: { live: 1, 'doc.organizationId': 1, 'doc.start_time': 1, _id: 1 },
  indexName: 'ix:organizationId,start_time',
  direction: 'backward',
};

describe('explain summary', () => {
  it('reads a page served by an index in order (classic engine)', () => {
    const explain = {
      queryPlanner: {
        winningPlan: {
          stage: 'LIMIT',
          inputStage: { stage: 'PROJECTION_SIMPLE', inputStage: { stage: 'FETCH', inputStage: indexScan } },
        },
      },
      executionStats,
    };
    expect(summarizePlan(explain)).toEqual({
      stages: ['LIMIT', 'PROJECTION_SIMPLE', 'FETCH', 'IXSCAN'],
      indexes: ['ix:organizationId,start_time'],
      keysExamined: 10,
      docsExamined: 10,
      returned: 10,
      millis: 1,
      sortsInMemory: false,
    });
  });

  it('finds the plan under queryPlan (slot-based engine), and an in-memory sort over merged scans', () => {
    const explain = {
      queryPlanner: {
        winningPlan: {
          queryPlan: {
            stage: 'SORT',
            inputStage: {
              stage: 'FETCH',
              inputStage: {
                stage: 'OR',
                inputStages: [indexScan, { ...indexScan, indexName: 'ix:organizationId,type,start_time' }],
              },
            },
          },
          slotBasedPlan: { slots: '...' },
        },
      },
      executionStats: { ...executionStats, totalKeysExamined: 100_000, totalDocsExamined: 100_000 },
    };
    expect(summarizePlan(explain)).toMatchObject({
      stages: ['SORT', 'FETCH', 'OR', 'IXSCAN', 'IXSCAN'],
      indexes: ['ix:organizationId,start_time', 'ix:organizationId,type,start_time'],
      keysExamined: 100_000,
      sortsInMemory: true,
    });
  });

  it('a merge of sorted scans is no in-memory sort', () => {
    const explain = { queryPlanner: { winningPlan: { stage: 'SORT_MERGE', inputStages: [indexScan, indexScan] } } };
    expect(summarizePlan(explain)).toMatchObject({ stages: ['SORT_MERGE', 'IXSCAN', 'IXSCAN'], sortsInMemory: false });
  });
});
