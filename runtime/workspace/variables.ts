import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptError } from '../errors';
import { writeFileAtomic } from './files';

/**
 * Workspace variables (spec 2.5): named values in <workspace>/variables.json, read by #trygetvar,
 * written by #setvar/#trysetvar and the %var magic. A variable declared encrypted is stored with
 * AES-256-GCM under the workspace key — the SQLCDC_SECRET environment variable when set, else the
 * 32 random bytes of <workspace>/secret.key (created with mode 0600) — and is never written or shown
 * in clear. Writes are atomic (temp file + rename).
 */
interface StoredVariable {
  name: string;
  encrypted: boolean;
  /** Clear text, or `v1:<base64 of iv(12) | tag(16) | ciphertext>` when encrypted. */
  value: string;
}

export interface VariableInfo {
  name: string;
  encrypted: boolean;
  /** The value for display: '****' when encrypted. */
  shown: string;
}

export const MASK = '****';
const PREFIX = 'v1:';

export class VariableStore {
  private readonly file: string;
  private readonly keyFile: string;
  private cache?: { stamp: string; vars: Map<string, StoredVariable> };

  constructor(readonly workspace: string) {
    this.file = join(workspace, 'variables.json');
    this.keyFile = join(workspace, 'secret.key');
  }

  /** Re-reads the file when another process (kernel, CLI) changed it. */
  private load(): Map<string, StoredVariable> {
    const stamp = existsSync(this.file) ? `${statSync(this.file).mtimeMs}:${statSync(this.file).size}` : 'none';
    if (this.cache?.stamp !== stamp) {
      const vars = new Map<string, StoredVariable>();
      if (stamp !== 'none') {
        let list: StoredVariable[];
        try {
          list = JSON.parse(readFileSync(this.file, 'utf8')) as StoredVariable[];
        } catch (e) {
          throw new ScriptError(`${this.file} is not valid JSON: ${(e as Error).message}`, 'runtime');
        }
        for (const v of list) vars.set(v.name.toLowerCase(), v);
      }
      this.cache = { stamp, vars };
    }
    return this.cache.vars;
  }

  private save(vars: Map<string, StoredVariable>): void {
    writeFileAtomic(this.file, JSON.stringify([...vars.values()], null, 2) + '\n', 0o600);
    this.cache = undefined;
  }

  private key(create: boolean): Buffer {
    const secret = process.env.SQLCDC_SECRET;
    if (secret) return scryptSync(secret, 'sqlcdc/variables', 32);
    if (existsSync(this.keyFile)) {
      const key = Buffer.from(readFileSync(this.keyFile, 'utf8').trim(), 'base64');
      if (key.length !== 32) throw new ScriptError(`${this.keyFile} does not hold a 32-byte key`, 'runtime');
      return key;
    }
    if (!create) throw new ScriptError(`the workspace key ${this.keyFile} is missing (or set SQLCDC_SECRET): encrypted variables cannot be read`, 'runtime');
    const key = randomBytes(32);
    writeFileAtomic(this.keyFile, key.toString('base64') + '\n', 0o600);
    return key;
  }

  private seal(name: string, clear: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(true), iv);
    // The name is authenticated too, so a value cannot be moved to another variable.
    cipher.setAAD(Buffer.from(name.toLowerCase()));
    const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  private open(v: StoredVariable): string {
    if (!v.encrypted) return v.value;
    if (!v.value.startsWith(PREFIX)) throw new ScriptError(`variable ${v.name}: unknown encrypted format`, 'runtime');
    const raw = Buffer.from(v.value.slice(PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key(false), raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(v.name.toLowerCase()));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch (e) {
      if (e instanceof ScriptError) throw e;
      throw new ScriptError(`variable ${v.name} cannot be decrypted with this workspace key (SQLCDC_SECRET or secret.key changed?)`, 'runtime');
    }
  }

  has(name: string): boolean {
    return this.load().has(name.trim().toLowerCase());
  }

  /** The clear value, or undefined when the variable does not exist. */
  get(name: string): string | undefined {
    const v = this.load().get(name.trim().toLowerCase());
    return v && this.open(v);
  }

  /** Creates or replaces a variable; `encrypted` undefined keeps an existing variable's setting. */
  set(name: string, value: string, encrypted?: boolean): void {
    const clean = name.trim();
    if (!/^[A-Za-z_][\w.-]*$/.test(clean)) throw new ScriptError(`'${name}' is not a variable name (letters, digits, _ . -)`, 'semantic');
    const vars = new Map(this.load());
    const existing = vars.get(clean.toLowerCase());
    const enc = encrypted ?? existing?.encrypted ?? false;
    const stored = existing?.name ?? clean;
    vars.set(clean.toLowerCase(), { name: stored, encrypted: enc, value: enc ? this.seal(stored, value) : value });
    this.save(vars);
  }

  /** Sets an existing variable (keeping its encryption); false when it does not exist. */
  update(name: string, value: string): boolean {
    if (!this.has(name)) return false;
    this.set(name, value);
    return true;
  }

  remove(name: string): boolean {
    const vars = new Map(this.load());
    if (!vars.delete(name.trim().toLowerCase())) return false;
    this.save(vars);
    return true;
  }

  list(): VariableInfo[] {
    return [...this.load().values()]
      .map((v) => ({ name: v.name, encrypted: v.encrypted, shown: v.encrypted ? MASK : v.value }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

const stores = new Map<string, VariableStore>();

/** The store of a workspace folder (one per folder per process). */
export function variablesOf(workspace: string): VariableStore {
  let s = stores.get(workspace);
  if (!s) {
    s = new VariableStore(workspace);
    stores.set(workspace, s);
  }
  return s;
}
