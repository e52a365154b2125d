// The public API of the interpreter, for front ends and embedders.
export { Session, DEFAULT_DISPLAY_LIMIT, type SessionOptions, type RunRequest } from './session';
export { Run } from './run';
export type { ChangeLogFile, CurrentChangeLog, Scope } from './scope';
export type { OutputItem, OutputListener } from './output';
export type { Command, CommandContext } from './commands/command';
export type { CommandTable } from './commands/table';
export type { Result, ExecuteOptions } from './results';
export { ScriptError, caretLines, describeError, toScriptError, type Position, type ErrorKind } from './errors';
export { Dataset } from './dataset/dataset';
export type { Column, ColumnType, BaseType, Value } from './dataset/types';
export { parseScript, isCompleteScript } from './script/parser';
export { pipelineNameOf } from './pipeline-name';
export { rotateWorkspaceKey } from './workspace/rotate-key';
export { sessionFolders } from './workspace/location';
