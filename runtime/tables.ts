// The dataset and its text rendering, a part of the public API that loads without the interpreter:
// for the CLI's commands that print a table and run no statement (job list, runs and show, webhook
// keys, change logs). Apart from ./support, which the kernel loads before its first reply: the
// renderer brings cli-table3, decimal.js and the document writers.
export { Dataset } from './dataset/dataset';
export type { Column, Value } from './dataset/types';
export { renderText } from './dataset/render';
