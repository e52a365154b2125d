// The part of the public API that loads without the interpreter, for front ends that must answer
// sooner than it loads: the kernel's first requests (kernel_info, history), which a client waits for
// only briefly, and the CLI's commands that read and write the workspace but run no statement
// (`sqlcdc changelog`, `job list|show|delete|trigger|update|runs`, `webhook key`, `workspace
// rotate-key`), which scripts and tests call by the hundred. Nothing here may import the session,
// the parser or the commands (test/cli/startup.test.ts checks what each of those commands loads).
export { describeWorkspace, sessionFolders, type SessionFolders } from './workspace/location';
export { writeFileAtomic } from './workspace/files';
export { holdsSecret, withoutSecrets } from './workspace/secret-input';
export { Fifo } from './util/fifo';
export { globSource, type GlobSyntax } from './sources/files/glob';
export { caretLines, errorInFile, isScriptError, toScriptError, type ScriptError } from './errors';
export { JobStore, settingsInWords, summary } from './jobs/store';
export type { OpenSession } from './jobs/sessions';
export type { JobReport } from './jobs/runner';
export { displayFallback } from './results';
export { isTriggerKind, TRIGGER_KINDS } from './jobs/job';
export { settingsOf, UPDATE_OPTIONS } from './jobs/update';
export { runRecords } from './jobs/recovery';
export { storedHighWatermark } from './changelog/watermark';
export { newSigningSecret } from './webhook/signature';
export { AccessKeys } from './webhook/auth';
export { redactScriptLine } from './workspace/redact';
export { rotateWorkspaceKey } from './workspace/rotate-key';
export { counted } from './util/words';
export { Dataset } from './dataset/dataset';
export type { Column, Value } from './dataset/types';
export { typeName } from './dataset/type-names';
export { renderText } from './dataset/render';
export { listChangeLogs, type ChangeLogEntry } from './changelog/list';
export { writeChangeLogJson } from './changelog/json';
export { ChangeLogReader, type StreamName } from './changelog/read';
export { changeLogTable, viewChangeLog, type ChangeLogView } from './changelog/inspect';
