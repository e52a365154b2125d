// The workspace's jobs, access keys and key as stored, without the interpreter: for the CLI's commands
// that run no script (`job list|show|delete|trigger|update|runs`, `webhook key`, `workspace
// rotate-key`), which scripts and tests call by the hundred. Apart from ./support so that what the
// kernel answers before the interpreter loads does not load these. Nothing here may import the session,
// the parser or the commands (test/cli/startup.test.ts checks what those commands load); runtime/index.ts
// exports the same.
export { JobStore, settingsInWords, summary } from './jobs/store';
export { loadLine, type LoadShown } from './jobs/load-shown';
export type { OpenSession } from './jobs/sessions';
export type { JobReport } from './jobs/runner';
export { isTriggerKind, TRIGGER_KINDS } from './jobs/job';
export { settingsOf, UPDATE_OPTIONS } from './jobs/update';
export { runRecords } from './jobs/recovery';
export { storedHighWatermark } from './changelog/watermark';
export { displayFallback } from './results';
export { newSigningSecret } from './webhook/signature';
export { AccessKeys } from './webhook/auth';
export { redactScriptLine } from './workspace/redact';
export { rotateWorkspaceKey } from './workspace/rotate-key';
