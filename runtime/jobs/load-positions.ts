import { loadFolder, loadPosition, namesOneFile } from '../commands/load-position';
import { toScriptError } from '../errors';
import { evaluateText } from '../functions/evaluate';
import { splitCell } from '../script/cell';
import { parseScript } from '../script/parser';
import type { Load } from '../script/ast';
import type { Scope } from '../scope';
import { counted } from '../util/words';
import type { JobSession } from './sessions';

/**
 * What the LOAD each script of a job starts with reads next, as `job show` says it: the log's folder,
 * LOAD's watermark there (the execution id of the last log the job played), and the log the next run
 * plays, with how many wait. Looked up as a run of the job would, in a session `open` gives (the
 * job's pipeline, its working directory), without running the scripts' magics; what cannot be looked
 * up says why. A script's name prefixes its line when there are several.
 */
export async function describeLoads(
  scripts: readonly { name: string; source: string }[],
  open: () => JobSession,
  pipeline: string,
): Promise<string[]> {
  const session = open();
  try {
    const run = session.newRun({ pipeline });
    const scope: Scope = { session: run.session, run, dataset: run.dataset };
    const lines: string[] = [];
    for (const { name, source } of scripts) {
      const first = parseScript(source, splitCell(source).bodyOffset).statements[0];
      if (first?.kind !== 'Load') continue;
      const said = await describeLoad(first, scope).catch((e: unknown) => `cannot tell: ${toScriptError(e).message}`);
      lines.push(`${scripts.length > 1 ? `${name} ` : ''}${said}`);
    }
    return lines;
  } finally {
    await session.close();
  }
}

async function describeLoad(stmt: Load, scope: Scope): Promise<string> {
  const name = evaluateText(stmt.name, scope).trim();
  const location = loadFolder(stmt, name, scope);
  if (namesOneFile(name)) return `${name} in ${location.label}: that file each run (no watermark)`;
  const { watermark, stored, waiting } = await loadPosition(name, location, stmt, scope);
  const from = watermark === undefined ? 'no watermark yet' : `watermark ${watermark}${stored ? '' : ' (INITIAL_ID)'}`;
  const next = waiting[0]
    ? `next ${waiting[0].fileName} (${counted(waiting.length, 'log')} waiting)`
    : `no log after it`;
  return `${name} in ${location.label}: ${from}, ${next}`;
}
