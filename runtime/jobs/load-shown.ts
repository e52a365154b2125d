import { counted } from '../util/words';

/**
 * Where the LOAD a job's script starts with stands (`job show`, its text and its JSON): the log's
 * folder, LOAD's watermark there (the execution id of the last log the job played), and the log the
 * next run plays, with how many wait. `error` says why it could not be looked up.
 */
export interface LoadShown {
  script: 'reader' | 'writer';
  name?: string;
  folder?: string;
  /** A LOAD of one named file: it plays that file each run and keeps no watermark. */
  oneFile?: boolean;
  watermark?: string | null;
  /** The watermark is LOAD's INITIAL_ID: none is stored yet. */
  initialId?: boolean;
  next?: string | null;
  waiting?: number;
  error?: string;
}

/** `job show`'s line of a LOAD; the script's name prefixes it when the job has two scripts with LOAD. */
export function loadLine(l: LoadShown, named: boolean): string {
  const prefix = named ? `${l.script} ` : '';
  if (l.error !== undefined) return `${prefix}cannot tell: ${l.error}`;
  const place = `${l.name} in ${l.folder}`;
  if (l.oneFile) return `${prefix}${place}: that file each run (no watermark)`;
  const from =
    l.watermark === null || l.watermark === undefined
      ? 'no watermark yet'
      : `watermark ${l.watermark}${l.initialId ? ' (INITIAL_ID)' : ''}`;
  const next = l.next ? `next ${l.next} (${counted(l.waiting ?? 0, 'log')} waiting)` : 'no log after it';
  return `${prefix}${place}: ${from}, ${next}`;
}
