import type { Dataset } from './dataset/dataset';
import type { Value } from './dataset/types';

/** Facts about the last SELECT FROM HTTP, read by #last_http_*(). */
export interface LastHttp {
  status: number;
  headers: Record<string, string>;
  content: string;
  mediaType: string;
  byteCount: number;
}

/**
 * The interpreter state one Session owns and every command and function reads: the live pipeline,
 * the per-execution statebag, the workspace and what lives in it. Front ends never touch it directly.
 */
export interface RuntimeState {
  /** The workspace folder (./.sqlcdc or SQLCDC_HOME): connections, variables, certs, change logs. */
  workspace: string;
  /** Relative file paths (SELECT FROM DRIVE) resolve against this. */
  cwd: string;
  /** The pipeline dataset as of the statement now running. */
  dataset: Dataset;
  /** Lives for one pipeline execution (one `execute` call). Values as set by #statebag. */
  statebag: Map<string, Value>;
  lastHttp?: LastHttp;
  /** #setjsonsettings keys → values, lowercase keys. */
  jsonSettings: Map<string, string>;
  /** Reserved pipeline variables (@executionId, @highwatermark…) → values. */
  pipelineVariables: Map<string, Value>;
}
