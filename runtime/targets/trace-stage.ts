import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { atArgument } from '../at-argument';
import type { Column, Value } from '../dataset/types';
import { writeStaged, type Drive } from '../drives/drive';
import { driveFor, DRIVE_KINDS, remoteDrive } from '../drives/index';
import { ScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import type { Scope } from '../scope';
import type { TraceSpec } from '../script/ast';

type StageSpec = NonNullable<TraceSpec['stage']>;

/**
 * TRACE … STAGE ON [conn] '<folder>' { CREDENTIALS 'user:password' } (spec §4.2, docs/push.md): a batch
 * of trace rows is written to a file of the stage first, whole or not at all, then loaded from that
 * file, and the file is removed once its rows are in the table. As a warehouse's stage keeps a file
 * whose COPY failed, a batch the table did not take stays in the stage, named by the error, to be
 * looked at or loaded by hand: the calls it traces were made, and their trace is not lost with the
 * database being down.
 */
export class TraceStage {
  private readonly drive: Drive;
  private readonly folder: string;
  /** For messages: the folder as written, with its connection; never a password. */
  readonly label: string;
  /** One name per batch: the table's, the run's execution id, a number, and a random part for two TRACEs of one run. */
  private readonly prefix: string;
  private batches = 0;

  constructor(stage: StageSpec, table: string, scope: Scope) {
    this.folder = evaluateText(stage.folder, scope);
    this.drive = atArgument(stage.connection ?? stage.folder, () => stageDrive(stage, scope));
    atArgument(stage.folder, () => this.drive.within(this.folder));
    this.label = stage.connection ? `[${stage.connection.name}] ${this.folder}` : this.folder;
    const safe = table.replace(/[^\w.-]/g, '_');
    this.prefix = `${safe}_${scope.run.executionId}_${randomBytes(3).toString('hex')}`;
  }

  /** Writes `rows` as a new file of the stage: one JSON object a row, by column name. Its path on the drive. */
  async put(columns: readonly Column[], rows: readonly Value[][]): Promise<string> {
    const path = posix.join(this.folder, `${this.prefix}_${String(++this.batches).padStart(4, '0')}.jsonl`);
    const text = rows
      .map((row) => JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.name, row[i]]))))
      .join('\n');
    await writeStaged(this.drive, path, (staged) => writeFileSync(staged, text ? `${text}\n` : ''));
    return path;
  }

  /** The rows of a file of the stage, typed as `columns` (times were written as ISO text). */
  async take(path: string, columns: readonly Column[], signal: AbortSignal): Promise<Value[][]> {
    const copy = await this.drive.fetch(path, signal);
    try {
      return readFileSync(copy.file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const row = JSON.parse(line) as Record<string, Value>;
          return columns.map(({ name, type }) => {
            const v = row[name] ?? null;
            return type.base === 'datetime' && typeof v === 'string' ? new Date(v) : v;
          });
        });
    } finally {
      copy.done();
    }
  }

  remove(path: string): Promise<void> {
    return this.drive.remove(path);
  }

  /** Where a batch is kept, for the error that leaves it there. */
  where(path: string): string {
    return this.drive.local
      ? this.drive.local(path)
      : `${this.drive.label.replace(/\/$/, '')}/${path.replace(/^\//, '')}`;
  }
}

/**
 * The stage's drive: a local folder, a drive connection's, an FTP site's, an S3 bucket's or an Azure
 * container's. CREDENTIALS sign in to a remote stage instead of its connection's own: 'user:password'
 * on FTP, 'KEY_ID:SECRET' on S3, 'ACCOUNT:KEY' on Azure; a folder of this machine has nothing to sign in to, and is refused CREDENTIALS rather than
 * silently ignore them.
 */
const CREDENTIALS_FORM = {
  ftp: 'an FTP stage must be user:password',
  s3: 'an S3 stage must be KEY_ID:SECRET',
  az: 'an Azure stage must be ACCOUNT:KEY',
} as const;

function stageDrive(stage: StageSpec, scope: Scope): Drive {
  const credentials = stage.credentials && evaluateText(stage.credentials, scope);
  if (credentials === undefined) return driveFor(scope.session, stage.connection);
  const c = stage.connection && scope.session.connections.getOf(stage.connection.name, ...DRIVE_KINDS);
  if (!c || c.kind === 'drive')
    throw new ScriptError(
      'CREDENTIALS sign in to a remote stage (FTP user:password, S3 KEY_ID:SECRET, Azure ACCOUNT:KEY); a folder on this machine takes none',
      'semantic',
      stage.credentials!.pos,
    );
  const colon = credentials.indexOf(':');
  if (colon < 1)
    throw new ScriptError(`CREDENTIALS of ${CREDENTIALS_FORM[c.kind]}`, 'semantic', stage.credentials!.pos);
  const url = new URL(c.url);
  url.username = encodeURIComponent(credentials.slice(0, colon));
  url.password = '';
  // An account key signs in where the connection had a SAS token.
  url.searchParams.delete('sas');
  return remoteDrive({ ...c, url: url.toString(), password: credentials.slice(colon + 1) });
}
