import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readChangeLog, type ChangeLog } from '../../runtime/changelog/read';
import type { Dataset } from '../../runtime/dataset/dataset';
import type { Value } from '../../runtime/dataset/types';
import { Session, type SessionOptions } from '../../runtime/session';
import { tempDir } from '../helpers/session';

/** What a cell did: its messages, and the pipeline dataset after it. */
export interface Cell {
  messages: string[];
  dataset: Dataset;
}

/**
 * A working directory with a workspace (`ws`) in it, and sessions on it: each `session()` is a new
 * front end on the same folders, as consecutive `sqlcdc run`s or notebook kernels are.
 */
export class Folder {
  readonly dir = tempDir('capture');
  readonly workspace = join(this.dir, 'ws');
  private readonly open: Session[] = [];

  session(options: SessionOptions = {}): Session {
    const s = new Session({ workspace: this.workspace, cwd: this.dir, ...options });
    this.open.push(s);
    return s;
  }

  write(path: string, content: string | Buffer): void {
    mkdirSync(dirname(join(this.dir, path)), { recursive: true });
    writeFileSync(join(this.dir, path), content);
  }

  /** `orders.csv` (or `file`) with the columns id,status,amount. */
  orders(rows: (string | number)[][], file = 'orders.csv'): void {
    this.write(file, ['id,status,amount', ...rows.map((r) => r.join(','))].join('\n') + '\n');
  }

  /** The `.eds` files of a folder (relative to the working directory), in name order; other files are not logs. */
  logs(folder: string): string[] {
    const at = join(this.dir, folder);
    return existsSync(at)
      ? readdirSync(at)
          .filter((f) => f.endsWith('.eds'))
          .sort()
      : [];
  }

  /** Every file of a folder, temp files included. */
  files(folder: string): string[] {
    const at = join(this.dir, folder);
    return existsSync(at) ? readdirSync(at).sort() : [];
  }

  read(path: string, options: { checkSignature?: boolean } = {}): Promise<ChangeLog> {
    return readChangeLog(join(this.dir, path), { workspace: this.workspace, ...options });
  }

  async close(): Promise<void> {
    for (const s of this.open.splice(0)) await s.close();
  }
}

/** Runs a cell and collects its messages; a failing cell throws its ScriptError. */
export async function cell(session: Session, text: string): Promise<Cell> {
  const results = await session.run(text);
  return { messages: results.flatMap((r) => (r.kind === 'message' ? [r.text] : [])), dataset: session.dataset };
}

/** Rows as arrays of their text form, for comparing with what the CSV held. */
export function rows(ds: Dataset): Value[][] {
  return ds.rows().map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
}

export function names(ds: Dataset): string[] {
  return ds.columns.map((c) => c.name);
}

/** The execution id in a `<name>_<id>.eds` file name. */
export function idOf(file: string): bigint {
  const m = /_(\d+)\.eds$/.exec(file);
  if (!m) throw new Error(`${file} is not an id-named change log`);
  return BigInt(m[1]);
}

export const CAPTURE = `SELECT * FROM DRIVE 'orders.csv';`;
