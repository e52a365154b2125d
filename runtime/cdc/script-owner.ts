import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../workspace/files';
import { pipelineFile } from './state';

/**
 * `sqlcdc run` names a pipeline after its script's file name, so two scripts of one name in two
 * folders (`a/sync.sql`, `b/sync.sql`) are one pipeline and share its CDC state in the workspace: each
 * then takes the other's captures as its own, and reports its changes against them. CAPTURE notes the
 * script file that captured into the pipeline last (`cdc/<pipeline>/script.json`), and a CAPTURE of
 * another script file of that pipeline says so, while that file exists (a script moved or renamed
 * keeps its state without a word). Notebooks, the REPL and jobs name their pipelines otherwise and
 * note nothing.
 *
 * Returns the warning, or undefined; records `script` as the pipeline's.
 */
export function claimPipeline(workspace: string, pipeline: string, script: string): string | undefined {
  const file = pipelineFile(workspace, pipeline, 'script', '.json');
  const last = lastScript(file);
  if (last === script) return undefined;
  writeFileAtomic(file, `${JSON.stringify({ script })}\n`);
  if (last === undefined || !existsSync(last)) return undefined;
  return (
    `pipeline ${pipeline} of ${script} shares its CDC state with ${last}, which captured into it last: ` +
    `scripts of one file name are one pipeline, and each takes the other's captures as its own ` +
    `(rename one, or give it a pipeline of its own with a leading %pipeline NAME line)`
  );
}

function lastScript(file: string): string | undefined {
  try {
    const script = (JSON.parse(readFileSync(file, 'utf8')) as { script?: unknown } | null)?.script;
    return typeof script === 'string' ? script : undefined;
  } catch {
    // None yet, or unreadable: this script's note replaces it.
    return undefined;
  }
}
