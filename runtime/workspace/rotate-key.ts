import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { ScriptError } from '../errors';
import { JobDefinitions } from '../jobs/store';
import { ConnectionStore } from './connections';
import { syncFolder, writeFileAtomic } from './files';
import { VariableStore } from './variables';
import { WorkspaceKey, keyFromSecret } from './workspace-key';

export interface Rotation {
  variables: number;
  connections: number;
  /** Jobs whose webhook signing secret was resealed. */
  jobs: number;
  /** Where the new key is: the key file, or the SQLCDC_NEW_SECRET the user must now put in SQLCDC_SECRET. */
  keySource: string;
}

/**
 * `sqlcdc workspace rotate-key`: seals every secret of the workspace again under a new key: encrypted
 * variables, connection secrets and jobs' webhook signing secrets. With a key file, the new key is
 * written first as secret.key.next, every file is resealed (each atomically), and only then does
 * secret.key.next replace secret.key; a rotation stopped half-way still reads, since values fall back
 * to secret.key.next, and running rotate-key again finishes it with that same key (a fresh one would
 * strand the values already sealed under it). With SQLCDC_SECRET, the new secret comes from
 * SQLCDC_NEW_SECRET.
 */
export function rotateWorkspaceKey(workspace: string): Rotation {
  const fromEnv = process.env.SQLCDC_SECRET !== undefined;
  const newSecret = process.env.SQLCDC_NEW_SECRET;
  if (fromEnv && !newSecret) {
    throw new ScriptError(
      'the workspace key comes from SQLCDC_SECRET: give the new one in SQLCDC_NEW_SECRET, then set SQLCDC_SECRET to it',
      'semantic',
    );
  }
  const current = new WorkspaceKey(workspace);
  const pending = `${current.file}.next`;
  const resumed = !fromEnv && existsSync(pending);
  const nextKey = fromEnv
    ? keyFromSecret(newSecret!)
    : resumed
      ? Buffer.from(readFileSync(pending, 'utf8').trim(), 'base64')
      : randomBytes(32);
  if (!fromEnv && !resumed) writeFileAtomic(pending, nextKey.toString('base64') + '\n', 0o600);
  const next = new WorkspaceKey(workspace, nextKey);
  const variables = new VariableStore(workspace, current).resealWith(next);
  const connections = new ConnectionStore(workspace, current).resealWith(next);
  const jobs = new JobDefinitions(workspace).resealWith(next);
  if (!fromEnv) {
    renameSync(pending, current.file);
    // Lost to a power cut, the rename would leave both keys (values fall back to the pending one), but
    // the rotation would be reported done while the old key is still the one in place.
    syncFolder(dirname(current.file));
  }
  return {
    variables,
    connections,
    jobs,
    keySource: fromEnv ? 'SQLCDC_NEW_SECRET (now set SQLCDC_SECRET to it)' : current.file,
  };
}
