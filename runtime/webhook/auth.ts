import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError } from '../errors';
import { bearerKey } from './gate';
import { withFileLock } from '../workspace/file-lock';
import { writeFileAtomic } from '../workspace/files';
import { readJsonFile } from '../workspace/json-file';

/** An access key as stored: its hash only; the key itself is shown once, when created. */
export interface StoredKey {
  id: string;
  name: string;
  /** SHA-256 of the key, hex. */
  hash: string;
  created: string;
}

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/**
 * The listener's access keys (`<workspace>/webhook/keys.json`, decision C.6): callers send one as
 * `Authorization: Bearer <key>`. Keys are 32 random bytes; only their SHA-256 is kept, so the file
 * gives nobody a key. A key with that much entropy needs no slow hash.
 */
export class AccessKeys {
  readonly file: string;
  private cache?: { stamp: string; hashes: Buffer[] };

  constructor(workspace: string) {
    this.file = join(workspace, 'webhook', 'keys.json');
  }

  list(): StoredKey[] {
    return existsSync(this.file) ? readJsonFile<StoredKey[]>(this.file, 'array') : [];
  }

  /** A new key: returns it in clear, once. */
  create(name?: string): { key: string; stored: StoredKey } {
    return withFileLock(this.file, () => {
      const keys = this.list();
      const id = randomBytes(4).toString('hex');
      const key = `sqk_${randomBytes(32).toString('base64url')}`;
      const stored: StoredKey = {
        id,
        name: name ?? `key-${id}`,
        hash: hashOf(key),
        created: new Date().toISOString(),
      };
      if (keys.some((k) => k.name === stored.name))
        throw new ScriptError(`an access key named '${stored.name}' exists already`, 'semantic');
      writeFileAtomic(this.file, `${JSON.stringify([...keys, stored], null, 2)}\n`, 0o600);
      return { key, stored };
    });
  }

  /** Revokes the key of that id or name. */
  revoke(idOrName: string): StoredKey {
    return withFileLock(this.file, () => {
      const keys = this.list();
      const gone = keys.find((k) => k.id === idOrName || k.name === idOrName);
      if (!gone) throw new ScriptError(`no access key '${idOrName}' (sqlcdc webhook key list)`, 'semantic');
      writeFileAtomic(
        this.file,
        `${JSON.stringify(
          keys.filter((k) => k !== gone),
          null,
          2,
        )}\n`,
        0o600,
      );
      return gone;
    });
  }

  /** Whether an Authorization header carries a current key. A revoked key stops working at once. */
  accepts(authorization: string | undefined): boolean {
    const key = bearerKey(authorization);
    if (!key) return false;
    const hash = Buffer.from(hashOf(key), 'hex');
    let found = false;
    // Every key is compared, in constant time, so the answer's timing says nothing about the keys.
    for (const h of this.hashes()) if (timingSafeEqual(h, hash)) found = true;
    return found;
  }

  private hashes(): Buffer[] {
    const s = statSync(this.file, { throwIfNoEntry: false });
    const stamp = s ? `${s.ino}:${s.mtimeMs}:${s.size}` : '-';
    if (this.cache?.stamp !== stamp) this.cache = { stamp, hashes: this.list().map((k) => Buffer.from(k.hash, 'hex')) };
    return this.cache.hashes;
  }
}
