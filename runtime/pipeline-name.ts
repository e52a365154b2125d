import { basename, extname } from 'node:path';

/** A pipeline name names files (CDC state, change logs), so it keeps to characters every file system takes. */
export const PIPELINE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * The pipeline name of a script or notebook file: its name without folder and extension, other
 * characters replaced by `_` (`sqlcdc run jobs/orders sync.sql` → `orders_sync`).
 */
export function pipelineNameOf(file: string): string {
  const name = basename(file, extname(file))
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .replace(/^[.-]/, '_');
  return name || 'pipeline';
}
