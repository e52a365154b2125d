// Change log files listed, shown and exported without the interpreter, for `sqlcdc changelog
// list|show` (reading a log verifies its frames and may decrypt them: CMS, about 20 modules, which the
// CLI's other commands do not load). Nothing here may import the session, the parser or the commands;
// runtime/index.ts exports the same.
export { listChangeLogs, type ChangeLogEntry } from './changelog/list';
export { writeChangeLogJson } from './changelog/json';
export { changeLogTable, viewChangeLog, type ChangeLogView } from './changelog/inspect';
export { listedFolder, storedPipelines } from './changelog/store';
