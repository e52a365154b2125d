// The part of the public API that loads without the interpreter, for front ends that must answer
// sooner than it loads: the kernel's first requests (kernel_info, history), which a client waits for
// only briefly, and the CLI's commands that run no statement (with ./admin, ./changelog-files, ./tables). Nothing
// here may import the session, the parser or the commands, nor the dataset (./tables): the kernel
// loads this before its first reply. The CLI's job and key commands use ./admin besides.
export { describeWorkspace, sessionFolders, type SessionFolders, holdsSecret, withoutSecrets, Fifo } from './startup';
export { writeFileAtomic } from './workspace/files';
export { globSource, type GlobSyntax } from './sources/files/glob';
export { caretLines, errorInFile, isScriptError, toScriptError, type ScriptError } from './errors';
export { counted } from './util/words';
export { didYouMean } from './util/suggest';
export { fileErrorReason } from './util/file-error';
