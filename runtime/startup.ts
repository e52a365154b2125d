// The part of the public API a front end needs before its first answer, and nothing more: where the
// workspace is, secrets masked in what it logs, a queue. The kernel loads it before its first reply,
// which a starting client waits for (docs/jupyter.md, "Performance"); ./support, which adds atomic
// writes, globs and error formatting, loads with its history or the interpreter.
export { describeWorkspace, sessionFolders, type SessionFolders } from './workspace/location';
export { holdsSecret, withoutSecrets } from './workspace/secret-input';
export { Fifo } from './util/fifo';
