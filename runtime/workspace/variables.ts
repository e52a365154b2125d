import { join } from 'node:path';
import { ScriptError } from '../errors';
import { withFileLock } from './file-lock';
import { fileStamp, writeFileAtomic } from './files';
import { readJsonFile } from './json-file';
import { MASK, openedSecret } from './redact';
import { WorkspaceKey } from './workspace-key';

/**
 * Workspace variables (spec 2.5): named values in <workspace>/variables.json, read by #trygetvar,
 * written by #setvar/#trysetvar and the %var magic. A variable declared encrypted is sealed with the
 * workspace key (workspace-key.ts) and is never written or shown in clear. Writes are atomic.
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

export class VariableStore {
  private readonly file: string;
  private cache?: { stamp: string | undefined; vars: Map<string, StoredVariable> };

  constructor(
    readonly workspace: string,
    private readonly key = new WorkspaceKey(workspace),
  ) {
    this.file = join(workspace, 'variables.json');
  }

  /** Re-reads the file when another process (kernel, CLI) changed it. */
  private load(): Map<string, StoredVariable> {
    const stamp = fileStamp(this.file);
    if (!this.cache || this.cache.stamp !== stamp) {
      const vars = new Map<string, StoredVariable>();
      if (stamp !== undefined) {
        for (const v of readJsonFile<StoredVariable[]>(this.file, 'array')) vars.set(v.name.toLowerCase(), v);
      }
      this.cache = { stamp, vars };
    }
    return this.cache.vars;
  }

  private save(vars: Map<string, StoredVariable>): void {
    writeFileAtomic(this.file, JSON.stringify([...vars.values()], null, 2) + '\n', 0o600);
    this.cache = undefined;
  }

  /** Changes the file under its lock, on what it holds now: another process's change made meanwhile is kept. */
  private change<T>(edit: (vars: Map<string, StoredVariable>) => T): T {
    return withFileLock(this.file, () => {
      const vars = new Map(this.load());
      const result = edit(vars);
      this.save(vars);
      return result;
    });
  }

  private seal(name: string, clear: string): string {
    // The name is authenticated too, so a value cannot be moved to another variable.
    return this.key.seal(name, clear);
  }

  private open(v: StoredVariable): string {
    return v.encrypted ? openedSecret(this.key.open(v.name, v.value, `variable ${v.name}`)) : v.value;
  }

  /** Seals every encrypted variable again with `next` (workspace key rotation); returns how many. */
  resealWith(next: WorkspaceKey): number {
    return this.change((vars) => {
      let n = 0;
      for (const [k, v] of vars) {
        if (!v.encrypted) continue;
        vars.set(k, { ...v, value: next.seal(v.name, this.open(v)) });
        n++;
      }
      return n;
    });
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
    if (!/^[A-Za-z_][\w.-]*$/.test(clean))
      throw new ScriptError(`'${name}' is not a variable name (letters, digits, _ . -)`, 'semantic');
    this.change((vars) => {
      const existing = vars.get(clean.toLowerCase());
      const enc = encrypted ?? existing?.encrypted ?? false;
      const stored = existing?.name ?? clean;
      vars.set(clean.toLowerCase(), { name: stored, encrypted: enc, value: enc ? this.seal(stored, value) : value });
    });
  }

  /** Sets an existing variable (keeping its encryption); false when it does not exist. */
  update(name: string, value: string): boolean {
    if (!this.has(name)) return false;
    this.set(name, value);
    return true;
  }

  remove(name: string): boolean {
    return this.change((vars) => vars.delete(name.trim().toLowerCase()));
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
