import { loadFolder, loadPosition, namesOneFile } from '../commands/load-position';
import { toScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import { splitCell } from '../script/cell';
import { parseScript } from '../script/parser';
import type { Load } from '../script/ast';
import type { Scope } from '../scope';
import type { LoadShown } from './load-shown';
import type { JobSession } from './sessions';

/**
 * What the LOAD each script of a job starts with reads next, looked up as a run of the job would, in
 * a session `open` gives (the job's pipeline, its working directory), without running the scripts'
 * magics.
 */
export async function describeLoads(
  scripts: readonly { name: 'reader' | 'writer'; source: string }[],
  open: () => JobSession,
  pipeline: string,
): Promise<LoadShown[]> {
  const session = open();
  try {
    const run = session.newRun({ pipeline });
    const scope: Scope = { session: run.session, run, dataset: run.dataset };
    const shown: LoadShown[] = [];
    for (const { name, source } of scripts) {
      const first = parseScript(source, splitCell(source).bodyOffset).statements[0];
      if (first?.kind !== 'Load') continue;
      shown.push(
        await describeLoad(name, first, scope).catch((e: unknown) => ({
          script: name,
          error: toScriptError(e).message,
        })),
      );
    }
    return shown;
  } finally {
    await session.close();
  }
}

async function describeLoad(script: 'reader' | 'writer', stmt: Load, scope: Scope): Promise<LoadShown> {
  const name = evaluateText(stmt.name, scope).trim();
  const location = loadFolder(stmt, name, scope);
  if (namesOneFile(name)) return { script, name, folder: location.label, oneFile: true };
  const { watermark, stored, waiting } = await loadPosition(name, location, stmt, scope);
  return {
    script,
    name,
    folder: location.label,
    watermark: watermark ?? null,
    initialId: watermark !== undefined && !stored,
    next: waiting[0]?.fileName ?? null,
    waiting: waiting.length,
  };
}
