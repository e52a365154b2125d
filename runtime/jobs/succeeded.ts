import { PIPELINE_NAME } from '../pipeline-name';
import { JsonLines } from '../util/json-lines';
import { runsFile } from './job';
import { foldRuns, type RunLine } from './run-log';

/**
 * Whether job `job` of `workspace` recorded run `id` as a success. A job run's success line is its
 * commit point: written before its watermarks move, and redone from by the next start when a kill
 * cut them short (recovery.ts). False for a pipeline that is no job, and a run it never recorded.
 */
export function runSucceeded(workspace: string, job: string, id: string): boolean {
  if (!PIPELINE_NAME.test(job)) return false;
  const runs = new JsonLines<RunLine>(runsFile(workspace, job));
  return foldRuns(runs.read()).some((run) => run.id === id && run.outcome === 'success');
}
