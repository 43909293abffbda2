/**
 * The projections' alerts in the Prometheus text format: `projection_failed{projection="..."}` is 1
 * while a projection is stopped on an event it cannot apply (here, or on the replica that runs it),
 * 0 otherwise; `projections_failed` counts them.
 */
import type { ProjectionRunner } from '../../application/projection-runner';

const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function projectionMetrics(runner: Pick<ProjectionRunner, 'projections' | 'failures'>): string {
  const failed = new Set(runner.failures.map((f) => f.projection));
  return [
    '# HELP projection_failed 1 while the projection is stopped on an event it cannot apply (docs/projection-failures.md).',
    '# TYPE projection_failed gauge',
    ...runner.projections.map((p) => `projection_failed{projection="${label(p.name)}"} ${failed.has(p.name) ? 1 : 0}`),
    '# HELP projections_failed Projections stopped on an event they cannot apply.',
    '# TYPE projections_failed gauge',
    `projections_failed ${failed.size}`,
    '',
  ].join('\n');
}
