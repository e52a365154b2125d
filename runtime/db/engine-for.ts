import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { atArgument } from '../at-argument';
import type { Scope } from '../scope';
import type { ConnectionRef } from '../script/ast';
import type { Engine } from './engine';

/**
 * The open engine of a `[connection]` (sqlite or postgres), kept in the session's resources: one per
 * database, shared by every run of the session and closed with it. The key holds what the connection
 * points at, so redefining the connection opens the new target instead of reusing the old one.
 */
export function engineFor(scope: Scope, ref: ConnectionRef): Engine {
  const { session } = scope;
  const c = atArgument(ref, () => session.connections.getOf(ref.name, 'sqlite', 'postgres'));
  if (c.kind === 'sqlite') {
    const file = c.file === ':memory:' ? c.file : resolve(session.cwd, c.file);
    // Connections naming one file share its engine (one connection, one writer); each in-memory database is its own.
    const key = file === ':memory:' ? `db:sqlite-memory:${c.name.toLowerCase()}` : `db:sqlite:${file}`;
    // Each engine and its driver load with the first connection of their kind (pg: ~60 ms of modules).
    return atArgument(ref, () =>
      session.resources.shared(key, () => {
        const { SqliteEngine } = require('./sqlite') as typeof import('./sqlite');
        return new SqliteEngine(file, c.name);
      }),
    );
  }
  const secret = c.password === undefined ? '' : createHash('sha256').update(c.password).digest('hex');
  return session.resources.shared(`db:postgres:${c.url}:${secret}`, () => {
    const { PostgresEngine } = require('./postgres') as typeof import('./postgres');
    return new PostgresEngine(c.url, c.password);
  });
}
