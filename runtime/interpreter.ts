// The interpreter: a session and what shows its results, for the CLI's commands that run a script
// (`run`, `job run`, the sessions `serve` opens for calls). Without what index.ts adds for other uses
// (completion and inspection, the webhook listener, change logs read, replayed or inspected, key
// rotation), which a script run does not need: about 70 modules fewer (test/cli/startup.test.ts checks
// what `run` loads). runtime/index.ts exports the same.
export { Session } from './session';
export { cancelled, errorInFile, type ScriptError } from './errors';
export { displayFallback, type Result } from './results';
export type { Dataset } from './dataset/dataset';
export { renderText, toCsv, toJsonRows } from './dataset/render';
export { fileErrorReason } from './util/file-error';
export { pipelineNameOf } from './pipeline-name';
export { runJob } from './jobs/runner';
