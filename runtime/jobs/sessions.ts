import type { Dataset } from '../dataset/dataset';
import type { OutputChannel } from '../output';
import type { ExecuteOptions, Result } from '../results';
import type { Run } from '../run';

/** What a job run needs of a session: the Session class, seen from jobs/ without importing it. */
export interface JobSession {
  readonly dataset: Dataset;
  readonly output: OutputChannel;
  execute(text: string, options?: ExecuteOptions): AsyncGenerator<Result>;
  newRun(request?: {
    dataset?: Dataset;
    pipeline?: string;
    signal?: AbortSignal;
    origin?: string;
    beforeCommit?: ExecuteOptions['beforeCommit'];
  }): Run;
  close(): Promise<void>;
}

/**
 * Opens a session for a job's pipeline. Jobs receive it rather than import the Session, which knows
 * the magics, some of which run jobs: the session is handed in by whoever has one (the CLI, a magic).
 */
export type OpenSession = (options: { workspace: string; pipeline: string; cwd?: string }) => JobSession;
