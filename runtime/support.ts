// The part of the public API that loads without the interpreter: the kernel answers its first
// requests (kernel_info, history) before the interpreter, slower to load than a client waits, is
// needed. Nothing here may import the session, the parser or the commands.
export { describeWorkspace, sessionFolders, type SessionFolders } from './workspace/location';
export { writeFileAtomic } from './workspace/files';
export { globSource, type GlobSyntax } from './sources/files/glob';
