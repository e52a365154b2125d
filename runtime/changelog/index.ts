/** The change log file format (docs/changelog.md): what CAPTURE writes and LOAD reads. */
export type { ChangeLogHeader, ChangeLogCounts, CertificateRef } from './header';
export { writeChangeLog, type ChangeLogMeta, type WriteOptions, type WrittenChangeLog } from './write';
export {
  ChangeLogReader,
  readChangeLog,
  peekChangeLog,
  type ChangeLog,
  type ChangeLogPage,
  type ReadOptions,
  type StreamName,
} from './read';
export { changeLogTarget, pipelineStem, type ChangeLogTarget } from './naming';
export { listChangeLogs, nextChangeLog, type ChangeLogEntry } from './list';
export { writeChangeLogJson, type TextSink } from './json';
