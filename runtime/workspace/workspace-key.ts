import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError } from '../errors';
import { createFileAtomic } from './files';

const PREFIX = 'v1:';

/**
 * The workspace key: what encrypts every secret the workspace keeps at rest (encrypted variables,
 * connection passwords, tokens and header values, webhook signing secrets). It is the SQLCDC_SECRET
 * environment variable when set (stretched with scrypt), else the 32 random bytes of
 * <workspace>/secret.key, created with mode 0600 on first need. Values are AES-256-GCM:
 * `v1:<base64 of iv(12) | tag(16) | ciphertext>`, authenticated together with a label (the variable or
 * connection name), so a sealed value cannot be moved to another name.
 */
export class WorkspaceKey {
  readonly file: string;

  constructor(
    workspace: string,
    /** A key given instead of the workspace's (rotation seals with the new key). */
    private readonly given?: Buffer,
  ) {
    this.file = join(workspace, 'secret.key');
  }

  static isSealed(text: string): boolean {
    return text.startsWith(PREFIX);
  }

  /** Where the key comes from, for messages (never the key itself). */
  source(): string {
    return this.given ? 'the new key' : process.env.SQLCDC_SECRET ? 'SQLCDC_SECRET' : this.file;
  }

  private key(create: boolean): Buffer {
    if (this.given) return this.given;
    const secret = process.env.SQLCDC_SECRET;
    if (secret) return keyFromSecret(secret);
    if (existsSync(this.file)) {
      const key = Buffer.from(readFileSync(this.file, 'utf8').trim(), 'base64');
      if (key.length !== 32) throw new ScriptError(`${this.file} does not hold a 32-byte key`, 'runtime');
      return key;
    }
    if (!create)
      throw new ScriptError(
        `the workspace key ${this.file} is missing (or set SQLCDC_SECRET): encrypted values cannot be read`,
        'runtime',
      );
    const key = randomBytes(32);
    // Made without replacing: two processes sealing their first values at once would each make a
    // key, and the values sealed under the one replaced could never be read again.
    if (!createFileAtomic(this.file, key.toString('base64') + '\n', 0o600)) return this.key(false);
    return key;
  }

  /**
   * Seals under the workspace key or, while a rotation is under way (secret.key.next), under the key
   * it is moving to: a value saved by another process meanwhile, after the rotation resealed its file,
   * would otherwise be sealed under the key the rotation is about to replace, and never open again.
   */
  seal(label: string, clear: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.pending()[0] ?? this.key(true), iv);
    cipher.setAAD(Buffer.from(label.toLowerCase()));
    const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The clear text of a sealed value; `what` names it in errors ("variable token"). */
  open(label: string, sealed: string, what: string): string {
    if (!WorkspaceKey.isSealed(sealed)) throw new ScriptError(`${what}: unknown encrypted format`, 'runtime');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const clear =
      decrypt(this.key(false), label, raw) ??
      this.pending()
        .map((k) => decrypt(k, label, raw))
        .find((c) => c !== undefined);
    if (clear === undefined)
      throw new ScriptError(
        `${what} cannot be decrypted with this workspace key (SQLCDC_SECRET or secret.key changed?)`,
        'runtime',
      );
    return clear;
  }

  /** The key of a rotation under way or stopped half-way (secret.key.next), whose values are already resealed. */
  private pending(): Buffer[] {
    if (this.given || process.env.SQLCDC_SECRET || !existsSync(`${this.file}.next`)) return [];
    return [Buffer.from(readFileSync(`${this.file}.next`, 'utf8').trim(), 'base64')];
  }
}

function decrypt(key: Buffer, label: string, raw: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(label.toLowerCase()));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function keyFromSecret(secret: string): Buffer {
  return scryptSync(secret, 'sqlcdc/variables', 32);
}
