import { basename, extname } from 'node:path';

/**
 * A pipeline name names files (CDC state, change logs), so it keeps to characters every file system
 * takes, and to a length that leaves room in a file name (255 bytes) for a log's execution id and
 * extension, and a temp file's suffix.
 */
export const PIPELINE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
/** The rule of PIPELINE_NAME, in words for errors. */
export const PIPELINE_NAME_RULE =
  "letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 100 characters";

/**
 * The pipeline name of a script or notebook file: its name without folder and extension, other
 * characters replaced by `_` (`sqlcdc run jobs/orders sync.sql` → `orders_sync`).
 */
export function pipelineNameOf(file: string): string {
  const name = basename(file, extname(file))
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .replace(/^[.-]/, '_')
    .slice(0, 100);
  return name || 'pipeline';
}
