import { join } from 'node:path';
import { ScriptError } from '../errors';
import { withFileLock } from './file-lock';
import { fileStamp, writeFileAtomic } from './files';
import { readJsonFile } from './json-file';
import { MASK, redactUrl } from './redact';
import { WorkspaceKey } from './workspace-key';

export type HttpAuth =
  | { type: 'basic'; user: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'apikey'; header: string; key: string };

export interface HttpConnection {
  name: string;
  kind: 'http';
  /** Relative paths in (GET /path) are resolved against it. Never holds a password (that is auth). */
  baseUrl: string;
  headers?: Record<string, string>;
  auth?: HttpAuth;
  tls?: { rejectUnauthorized?: boolean; ca?: string };
  /** Seconds; statement TIMEOUT overrides it. */
  timeout?: number;
  /** The largest answer (bytes) a call may receive; default DEFAULT_MAX_ANSWER_BYTES (runtime/http/build.ts). */
  maxAnswer?: number;
}

export interface SqliteConnection {
  name: string;
  kind: 'sqlite';
  /** The database file (relative to the working directory), or `:memory:`. */
  file: string;
}

/** A connection given by a URL with a password: the URL is kept without it, the password apart. */
interface UrlConnection {
  name: string;
  /** postgres://user@host:port/db?sslmode=…, ftp://user@host:port/ — never with the password. */
  url: string;
  password?: string;
}

export interface PostgresConnection extends UrlConnection {
  kind: 'postgres';
}

export interface FtpConnection extends UrlConnection {
  kind: 'ftp';
  /** ftps: `--insecure` accepts any certificate (a test server's self-signed one). */
  tls?: { rejectUnauthorized?: boolean };
}

/**
 * An S3 bucket (or an S3-compatible store: MinIO, Cloudflare R2, Ceph…):
 * `s3://KEY_ID@bucket/prefix?region=…&endpoint=…`, the secret access key kept apart as `password`.
 * Without a key id, the AWS SDK's own credentials (environment, ~/.aws, instance role).
 */
export interface S3Connection extends UrlConnection {
  kind: 's3';
}

/**
 * An Azure Blob Storage container: `az://ACCOUNT@container/folder?endpoint=…`, the account key (or,
 * with `sas` in the URL, a SAS token) kept apart as `password`.
 */
export interface AzureConnection extends UrlConnection {
  kind: 'az';
}

export interface DriveConnection {
  name: string;
  kind: 'drive';
  /** Root folder that relative paths resolve against. */
  root: string;
}

export type DbConnection = SqliteConnection | PostgresConnection;
export type Connection =
  HttpConnection | DbConnection | FtpConnection | S3Connection | AzureConnection | DriveConnection;

/** The connections given by a URL whose password is kept apart from it. */
type PasswordConnection = PostgresConnection | FtpConnection | S3Connection | AzureConnection;

function hasUrlPassword(c: Connection): c is PasswordConnection {
  return c.kind === 'postgres' || c.kind === 'ftp' || c.kind === 's3' || c.kind === 'az';
}

/** A secret value inside a connection: its path of keys, and the value. */
type SecretLeaf = [path: string[], value: string];

/**
 * Where a connection keeps its secrets: passwords, tokens, API keys, every header value, and a URL
 * carrying a key in its query (`https://fn.example/api?code=…`; an az:// URL whose SAS token was not
 * percent-encoded, `?sas=sv=…&sig=…`, leaving its `sig` a parameter of the URL).
 */
function secretsOf(c: Connection): SecretLeaf[] {
  const out: SecretLeaf[] = [];
  if (c.kind === 'http') {
    if (redactUrl(c.baseUrl) !== c.baseUrl) out.push([['baseUrl'], c.baseUrl]);
    if (c.auth?.type === 'basic') out.push([['auth', 'password'], c.auth.password]);
    // A user without a password is a token (`https://ghp_…@github.com/`, as GitHub documents it).
    if (c.auth?.type === 'basic' && c.auth.password === '') out.push([['auth', 'user'], c.auth.user]);
    if (c.auth?.type === 'bearer') out.push([['auth', 'token'], c.auth.token]);
    if (c.auth?.type === 'apikey') out.push([['auth', 'key'], c.auth.key]);
    for (const [k, v] of Object.entries(c.headers ?? {})) out.push([['headers', k], v]);
  }
  if (hasUrlPassword(c) && c.password !== undefined) out.push([['password'], c.password]);
  if (hasUrlPassword(c) && redactUrl(c.url) !== c.url) out.push([['url'], c.url]);
  return out;
}

/** A deep copy of `c` with each secret leaf set to `value(leaf)`. */
function withLeaves(c: Connection, leaves: SecretLeaf[]): Connection {
  const copy = structuredClone(c) as unknown as Record<string, unknown>;
  for (const [path, value] of leaves) {
    let node = copy;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
    node[path[path.length - 1]] = value;
  }
  return copy as unknown as Connection;
}

/** A secret leaf as shown and stored in clear: ****, or a URL with its secret parts ****. */
function masked(leaves: SecretLeaf[]): SecretLeaf[] {
  return leaves.map(([path, value]) => [path, path[0] === 'baseUrl' || path[0] === 'url' ? redactUrl(value) : MASK]);
}

/** A connection safe to show: every secret is ****, URLs show `user:****@` and `?token=****`. */
export function redactConnection(c: Connection): Record<string, unknown> {
  const shown = withLeaves(c, masked(secretsOf(c))) as unknown as Record<string, unknown>;
  if (hasUrlPassword(c)) {
    const url = new URL(c.url);
    if (c.password !== undefined) url.password = 'x';
    shown.url = redactUrl(url.toString());
    delete shown.password;
  }
  return shown;
}

/** A connection as connections.json keeps it: secrets sealed under the workspace key, never in clear. */
type StoredConnection = Connection & { sealed?: string };

/**
 * Whether a stored connection shows a secret in clear: written before secrets were sealed, or before
 * that kind of secret was (an az:// URL's unencoded `&sig=…`, kept beside its sealed SAS token).
 */
function inClear(stored: StoredConnection): boolean {
  const leaves = secretsOf(upgrade(stored));
  const shown = masked(leaves);
  return leaves.some(([, value], i) => value !== shown[i][1]);
}

/**
 * Named connections, kept in <workspace>/connections.json (mode 0600, written atomically). Their secrets
 * are sealed with the workspace key (workspace-key.ts), the connection's name authenticated with them;
 * a file written before that (secrets in clear) is rewritten sealed the first time it is read. Names
 * are case-insensitive, as connection names in brackets are written by hand in scripts.
 */
export class ConnectionStore {
  private readonly file: string;
  /** The file as last read, and its stamp: another session or process may change it meanwhile. */
  private cache?: { stamp: string | undefined; connections: Map<string, Connection> };

  constructor(
    workspace: string,
    private readonly key = new WorkspaceKey(workspace),
  ) {
    this.file = join(workspace, 'connections.json');
  }

  private load(): Map<string, Connection> {
    const stamp = fileStamp(this.file);
    if (!this.cache || this.cache.stamp !== stamp) {
      const connections = new Map<string, Connection>();
      let clearSecrets = false;
      if (stamp !== undefined) {
        const list = readJsonFile<StoredConnection[]>(this.file, 'array');
        for (const stored of list) {
          const c = this.unseal(stored);
          if (inClear(stored) || hasPasswordParam(c)) clearSecrets = true;
          connections.set(c.name.toLowerCase(), c);
        }
      }
      this.cache = { stamp, connections };
      if (clearSecrets) this.save();
    }
    return this.cache.connections;
  }

  /**
   * Changes the file under its lock, on what it holds now: two sessions on one workspace (two
   * kernels, a kernel and the CLI) each keep the other's change rather than write back an old copy.
   */
  private change<T>(edit: (connections: Map<string, Connection>) => T): T {
    return withFileLock(this.file, () => {
      const result = edit(this.load());
      this.save();
      return result;
    });
  }

  private unseal(stored: StoredConnection): Connection {
    const { sealed, ...rest } = stored;
    const c = upgrade(rest);
    const open = sealed
      ? withLeaves(c, JSON.parse(this.key.open(c.name, sealed, `connection [${c.name}]`)) as SecretLeaf[])
      : c;
    // Saved before a `password` parameter was taken out of the URL: take it out now, to be sealed.
    return hasPasswordParam(open) ? { ...open, ...splitPassword(open.url, open.password) } : open;
  }

  private sealedForm(c: Connection, key: WorkspaceKey): StoredConnection {
    const leaves = secretsOf(c);
    if (leaves.length === 0) return c;
    const clear = withLeaves(c, masked(leaves));
    if (hasUrlPassword(clear)) delete clear.password;
    return { ...clear, sealed: key.seal(c.name, JSON.stringify(leaves)) };
  }

  private save(key: WorkspaceKey = this.key): void {
    const stored = [...this.load().values()].map((c) => this.sealedForm(c, key));
    writeFileAtomic(this.file, JSON.stringify(stored, null, 2) + '\n', 0o600);
  }

  /** Seals every connection again with `next` (workspace key rotation); returns how many hold secrets. */
  resealWith(next: WorkspaceKey): number {
    // Under the file's lock, as every change is: a connection another process adds meanwhile is kept.
    return withFileLock(this.file, () => {
      const n = this.list().filter((c) => secretsOf(c).length > 0).length;
      this.save(next);
      return n;
    });
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
      throw new ScriptError(
        `connection [${c.name}] is a ${c.kind} connection; expected ${kinds.join(' or ')}`,
        'runtime',
      );
    }
    return c as Extract<Connection, { kind: K }>;
  }

  add(connection: Connection): void {
    this.change((connections) => connections.set(connection.name.toLowerCase(), connection));
  }

  remove(name: string): boolean {
    return this.change((connections) => connections.delete(name.trim().toLowerCase()));
  }
}

/** Database connections written before connection URLs (`target`) read as today's shape. */
function upgrade(c: Connection): Connection {
  const legacy = c as unknown as { kind: string; target?: string; name: string };
  if (legacy.target === undefined) return c;
  if (legacy.kind === 'sqlite') return { name: c.name, kind: 'sqlite', file: legacy.target };
  return { name: c.name, kind: 'postgres', ...splitPassword(legacy.target) };
}

/**
 * A URL's user or password as typed: %XX escapes decoded, and a `%` that starts none (a password
 * `p%zz`, not percent-encoded) kept as the character it is.
 */
export function decodeUserinfo(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (escaped) => {
    try {
      return decodeURIComponent(escaped);
    } catch {
      return escaped;
    }
  });
}

function hasPasswordParam(c: Connection): c is PostgresConnection {
  return c.kind === 'postgres' && new URL(c.url).searchParams.has('password');
}

/**
 * A URL's password taken out of it: the URL to keep, and the password to seal. The password is the
 * user info's, or a `password` query parameter's (libpq's form, which pg prefers over the user info's).
 */
export function splitPassword(text: string, password?: string): { url: string; password?: string } {
  const url = new URL(text);
  const param = url.searchParams.get('password');
  if (param !== null) url.searchParams.delete('password');
  const own = param ?? (url.password ? decodeUserinfo(url.password) : password);
  url.password = '';
  return own === undefined ? { url: url.toString() } : { url: url.toString(), password: own };
}
