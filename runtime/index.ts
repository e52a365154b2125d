// The public API of the interpreter, for front ends and embedders.
export { Session, DEFAULT_DISPLAY_LIMIT, type SessionOptions } from './session';
export type { Result, ExecuteOptions } from './results';
export { ScriptError, caretLines, describeError, type Position, type ErrorKind } from './errors';
export { Dataset } from './dataset/dataset';
export type { Column, ColumnType, BaseType, Value } from './dataset/types';
export { parseScript, isCompleteScript } from './script/parser';
