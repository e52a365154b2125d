import { checkScript } from '../commands/checks';
import { ScriptError } from '../errors';
import { splitCell } from '../script/cell';
import { parseScript } from '../script/parser';

/**
 * A job's script is refused when it is saved if its statements do not parse, or break a rule about a
 * script as a whole, as crontab refuses a table it cannot read: the mistake is shown to whoever wrote
 * it, at its line, rather than by the job's first run (at night, or under a webhook's calls, each then
 * answered 500). Leading magics run at each run and are judged then; a cell magic (`%%…`) owns its body.
 * The script is `text` from `from` on (a `%%job` cell's body, placed in the cell's lines); `name` is the
 * file it came from, which the error then names.
 */
export function checkJobScript(text: string, { name, from = 0 }: { name?: string; from?: number }): void {
  const script = text.slice(from);
  if (/^\s*%%/.test(script)) return;
  try {
    checkScript(parseScript(text, from + splitCell(script).bodyOffset).statements);
  } catch (e) {
    throw e instanceof ScriptError && name !== undefined ? e.inScript(name, text) : e;
  }
}
