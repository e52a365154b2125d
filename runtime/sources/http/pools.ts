import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Pool } from 'undici';
import { ScriptError } from '../../errors';
import type { HttpConnection } from '../../workspace/connections';

/**
 * One undici Pool per origin (and TLS settings), kept per session so keep-alive connections are
 * reused across statements and cells. undici's Pool/request is ~6x faster than fetch here
 * (shared/notes/performance.md). The front end calls closeHttpPools when the session ends.
 */
const bySession = new WeakMap<object, Map<string, Pool>>();

export function poolFor(session: object, origin: string, tls: HttpConnection['tls'] | undefined, workspace: string): Pool {
  let pools = bySession.get(session);
  if (!pools) {
    pools = new Map();
    bySession.set(session, pools);
  }
  const key = tls ? `${origin} ${JSON.stringify(tls)}` : origin;
  let pool = pools.get(key);
  if (!pool) {
    // undici (95 modules, 60 ms) loads with the first HTTP call, not with the interpreter.
    const { Pool: UndiciPool } = require('undici') as typeof import('undici');
    pool = new UndiciPool(origin, tls ? { connect: { rejectUnauthorized: tls.rejectUnauthorized, ca: tls.ca ? certificateText(tls.ca, workspace) : undefined } } : {});
    pools.set(key, pool);
  }
  return pool;
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

/** Closes the session's pools (their idle keep-alive connections). */
export async function closeHttpPools(session: object): Promise<void> {
  const pools = bySession.get(session);
  if (!pools) return;
  bySession.delete(session);
  await Promise.all([...pools.values()].map((p) => p.destroy()));
}
