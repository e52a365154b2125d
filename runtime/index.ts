// The public API of the interpreter, for front ends and embedders. Front ends import the runtime
// through this module only, or through a part of it that loads sooner: ./startup (a front end's
// first answer), ./support (before the interpreter), ./admin (the workspace's jobs and keys),
// ./changelog-files (change logs listed and shown), ./tables (the dataset rendered as text),
// ./check (the parser alone), ./interpreter (a session, for running scripts), ./serve (the webhook
// listener); eslint checks it.
export { Session, DEFAULT_DISPLAY_LIMIT, type SessionOptions, type RunRequest } from './session';
export { Run } from './run';
export type { ChangeLogFile, CurrentChangeLog, Scope } from './scope';
export type { OutputItem, OutputListener } from './output';
export type { Command, CommandContext } from './commands/command';
export type { CommandTable } from './commands/table';
export { displayFallback, type Result, type ExecuteOptions } from './results';
export {
  ScriptError,
  cancelled,
  caretLines,
  describeError,
  errorInFile,
  toScriptError,
  type Position,
  type ErrorKind,
} from './errors';
export { Dataset } from './dataset/dataset';
export { fileErrorReason } from './util/file-error';
export type { Column, ColumnType, BaseType, Value } from './dataset/types';
export { renderText, renderHtml, escapeHtml, toCsv, toJsonRows, toDataResource } from './dataset/render';
export { parseScript } from './script/parser';
export { splitCell, cellStatus, type CellStatus, type MagicLine, type SplitCell } from './script/cell';
export { evaluateText } from './functions/evaluate';
export { complete, type Completion } from './services/complete';
export { inspect, type Inspection } from './services/inspect';
export type { Magic, MagicHost, MagicTable } from './magics/magic';
export { pipelineNameOf } from './pipeline-name';
export { rotateWorkspaceKey } from './workspace/rotate-key';
export { describeWorkspace, sessionFolders, type SessionFolders } from './workspace/location';
export { isScriptError } from './errors';
export { listChangeLogs, type ChangeLogEntry } from './changelog/list';
export { storedHighWatermark } from './changelog/watermark';
export { writeChangeLogJson } from './changelog/json';
export { changeLogTable, viewChangeLog, type ChangeLogView } from './changelog/inspect';
export { JobStore } from './jobs/store';
export { replayChangeLog } from './jobs/replay';
export { isTriggerKind, TRIGGER_KINDS } from './jobs/job';
export { type JobReport, runJob } from './jobs/runner';
export type { OpenSession } from './jobs/sessions';
export { runRecords } from './jobs/recovery';
export { settingsInWords, summary } from './jobs/store';
export { settingsOf, UPDATE_OPTIONS } from './jobs/update';
export { checkJobScript } from './check';
export { isSigningSecret, newSigningSecret } from './webhook/signature';
export { AccessKeys } from './webhook/auth';
export { IdempotencyStore } from './webhook/idempotency';
export { Ingest } from './webhook/ingest';
export { isLoopback, startListener } from './webhook/server';
export { READ_TIMEOUT_MS } from './webhook/read-timeout';
export { redactScriptLine } from './workspace/redact';
export { parseSize } from './util/size';
