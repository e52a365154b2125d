import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Pool } from 'undici';
import { ScriptError } from '../errors';
import type { Resources } from '../resources';
import type { HttpConnection } from '../workspace/connections';

/**
 * One undici Pool per origin (and TLS settings), kept in the session's resources so keep-alive
 * connections are reused across statements, cells and runs, and closed with the session. undici's
 * Pool/request is ~6x faster than fetch here (shared/notes/performance.md).
 */
export function poolFor(
  resources: Resources,
  origin: string,
  tls: HttpConnection['tls'] | undefined,
  workspace: string,
): Pool {
  const key = tls ? `http ${origin} ${JSON.stringify(tls)}` : `http ${origin}`;
  return resources.shared(key, () => {
    // undici (95 modules, 60 ms) loads with the first HTTP call, not with the interpreter.
    const { Pool: UndiciPool } = require('undici') as typeof import('undici');
    const pool = new UndiciPool(
      origin,
      tls
        ? {
            connect: {
              rejectUnauthorized: tls.rejectUnauthorized,
              ca: tls.ca ? certificateText(tls.ca, workspace) : undefined,
            },
          }
        : {},
    );
    // Closing the session must not wait for a call still hanging: destroy, not close.
    return { pool, close: () => pool.destroy() };
  }).pool;
}

/** A CA given as PEM text, or as a file path (relative paths: the workspace's certs folder). */
function certificateText(ca: string, workspace: string): string {
  if (ca.includes('-----BEGIN')) return ca;
  const path = isAbsolute(ca) ? ca : join(workspace, 'certs', ca);
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new ScriptError(`cannot read the CA certificate ${path}`, 'runtime');
  }
}
