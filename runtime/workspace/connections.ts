import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError } from '../errors';
import { writeFileAtomic } from './files';

export type HttpAuth =
  | { type: 'basic'; user: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'apikey'; header: string; key: string };

export interface HttpConnection {
  name: string;
  kind: 'http';
  /** Relative paths in (GET /path) are resolved against it. */
  baseUrl: string;
  headers?: Record<string, string>;
  auth?: HttpAuth;
  tls?: { rejectUnauthorized?: boolean; ca?: string };
  /** Seconds; statement TIMEOUT overrides it. */
  timeout?: number;
}

export interface DbConnection {
  name: string;
  kind: 'sqlite' | 'postgres';
  /** sqlite: file path; postgres: a connection string. */
  target: string;
}

export interface DriveConnection {
  name: string;
  kind: 'drive';
  /** Root folder that relative paths resolve against. */
  root: string;
}

export type Connection = HttpConnection | DbConnection | DriveConnection;

/** Keys whose values are secrets: stored, used, never printed back. */
const SECRET_FIELDS = ['password', 'token', 'key'];

/**
 * Named connections, kept in <workspace>/connections.json (written atomically). Names are
 * case-insensitive, as connection names in brackets are written by hand in scripts.
 */
export class ConnectionStore {
  private readonly file: string;
  private cache?: Map<string, Connection>;

  constructor(workspace: string) {
    this.file = join(workspace, 'connections.json');
  }

  private load(): Map<string, Connection> {
    if (!this.cache) {
      this.cache = new Map();
      if (existsSync(this.file)) {
        const list = JSON.parse(readFileSync(this.file, 'utf8')) as Connection[];
        for (const c of list) this.cache.set(c.name.toLowerCase(), c);
      }
    }
    return this.cache;
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify([...this.load().values()], null, 2) + '\n', 0o600);
  }

  list(): Connection[] {
    return [...this.load().values()];
  }

  names(): string[] {
    return this.list().map((c) => c.name);
  }

  find(name: string): Connection | undefined {
    return this.load().get(name.trim().toLowerCase());
  }

  get(name: string): Connection {
    const c = this.find(name);
    if (!c) {
      const known = this.names().join(', ') || 'none defined; add one with %connection add';
      throw new ScriptError(`unknown connection [${name}] (known: ${known})`, 'runtime');
    }
    return c;
  }

  /** The connection of the given kind, or a clear error naming what it is instead. */
  getOf<K extends Connection['kind']>(name: string, ...kinds: K[]): Extract<Connection, { kind: K }> {
    const c = this.get(name);
    if (!(kinds as string[]).includes(c.kind)) {
      throw new ScriptError(`connection [${c.name}] is a ${c.kind} connection; expected ${kinds.join(' or ')}`, 'runtime');
    }
    return c as Extract<Connection, { kind: K }>;
  }

  add(connection: Connection): void {
    this.load().set(connection.name.toLowerCase(), connection);
    this.save();
  }

  remove(name: string): boolean {
    const removed = this.load().delete(name.trim().toLowerCase());
    if (removed) this.save();
    return removed;
  }

  /** A description safe to show: secrets replaced by ****. */
  static redact(c: Connection): Record<string, unknown> {
    return JSON.parse(JSON.stringify(c), (k: string, v: unknown) => (SECRET_FIELDS.includes(k) && typeof v === 'string' ? '****' : v)) as Record<string, unknown>;
  }
}
