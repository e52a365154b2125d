import { after, test } from 'node:test';
import type { Dataset } from '../../runtime/dataset/dataset';
import { decimalText } from '../../runtime/dataset/decimal-scale';
import type { Value } from '../../runtime/dataset/types';
import type { ScriptError } from '../../runtime/errors';
import type { Result } from '../../runtime/results';
import type { Session } from '../../runtime/session';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../helpers/postgres';
import { tempSession } from '../helpers/session';

export type EngineName = 'sqlite' | 'postgres';

/** A session with a database connection `[db]` of one engine, in a temp folder of its own. */
export interface DbCase {
  engine: EngineName;
  session: Session;
  dir: string;
  /** Runs a cell; its messages and warnings (tables left out). */
  run(text: string, signal?: AbortSignal): Promise<string[]>;
  /** Runs a cell and returns the pipeline dataset after it. */
  data(text: string): Promise<Dataset>;
  /** The rows a query returns, as plain values (through SELECT FROM DB on a session of its own). */
  rows(sql: string): Promise<unknown[][]>;
  /** The error a cell fails with. */
  error(text: string): Promise<ScriptError>;
}

let server: PostgresServer | undefined;

/**
 * Declares each test once per engine: SQLite always, PostgreSQL when a real server can be started
 * (one server per test file, started by its first PostgreSQL test; a fresh database per test).
 */
export function dbTest(
  title: string,
  body: (db: DbCase) => Promise<void>,
  engines: EngineName[] = ['sqlite', 'postgres'],
): void {
  for (const engine of engines) {
    const skip = engine === 'postgres' ? postgresUnavailable() : undefined;
    test(`${title} (${engine})`, { skip }, async () => {
      const db = await newCase(engine);
      try {
        await body(db);
      } finally {
        await db.session.close();
      }
    });
  }
}

after(() => {
  server?.stop();
});

/** A temp session whose `[db]` points at a new SQLite file or a new PostgreSQL database. */
export async function newCase(engine: EngineName, files: Record<string, string> = {}): Promise<DbCase> {
  const { session, dir } = tempSession(files, 'db');
  // Started here rather than in a before hook: node --test runs this module as a test file too
  // (every file of dist/test/), where a server started for no test cost an initdb.
  const url = engine === 'sqlite' ? 'sqlite:test.db' : await (server ??= startPostgres()).newDatabase();
  await session.run(`%connection add db ${url}`);
  const db: DbCase = {
    engine,
    session,
    dir,
    run: async (text, signal) => messages(await session.run(text, { signal })),
    data: async (text) => {
      await session.run(text);
      return session.dataset;
    },
    rows: async (sql) => {
      const reader = tempSession({}, 'db').session;
      await reader.run(`%connection add db ${engine === 'sqlite' ? `sqlite:${dir}/test.db` : url}`);
      try {
        await reader.run(`SELECT * FROM DB [db] (${sql})`);
        return reader.dataset.rows().map((r) => r.map(plain));
      } finally {
        await reader.close();
      }
    },
    error: async (text) => {
      try {
        await session.run(text);
      } catch (e) {
        return e as ScriptError;
      }
      throw new Error(`expected the cell to fail: ${text}`);
    },
  };
  return db;
}

function messages(results: Result[]): string[] {
  return results.flatMap((r) => (r.kind === 'message' || r.kind === 'warning' ? [r.text] : []));
}

/** A cell as a comparable value: long and decimal as text with a suffix (decimals with their scale), bytes as hex, dates as ISO text. */
export function plain(v: Value): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  if (v !== null && typeof v === 'object') return `${decimalText(v)}m`;
  return v;
}

/** A number from a plain cell (a count is a long in PostgreSQL, '5n'). */
export function number(v: unknown): number {
  return Number(String(v).replace(/[nm]$/, ''));
}

/** "name:type" of each column, in the type notation (decimal(10,2), string[20]). */
export function schemaOf(ds: Dataset): string[] {
  return ds.columns.map((c) => {
    const t = c.type;
    if (t.base === 'decimal' && t.precision !== undefined) return `${c.name}:decimal(${t.precision},${t.scale})`;
    if (t.size !== undefined) return `${c.name}:${t.base}[${t.size}]`;
    return `${c.name}:${t.base}`;
  });
}
