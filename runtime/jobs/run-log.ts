/** One run of a job: a `job run`, a triggered run or a webhook call. */
export interface RunRecord {
  /** The execution id of the run. */
  id: string;
  /** What started it: run (the CLI or %job run), trigger, webhook, replay. */
  by: string;
  start: string;
  end: string;
  rows: number;
  outcome: 'success' | 'failure';
  error?: string;
}
