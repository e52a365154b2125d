import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { changeLogTable, viewChangeLog } from '../changelog/inspect';
import { listChangeLogs } from '../changelog/list';
import { parseIdFileName } from '../changelog/naming';
import { listedFolder, storeDir, storedPipelines, storePipelineFor } from '../changelog/store';
import { ScriptError } from '../errors';
import type { Result } from '../results';
import { counted } from '../util/words';
import { ArgumentError, parseFlags, splitArgs } from './args';
import { OPTIONS, USAGE } from './changelog-info';
import type { Magic, MagicHost } from './magic';

/** %changelog (changelog-info.ts): `sqlcdc changelog list|show` in a cell. */
export const run: Magic['run'] = async (session, args): Promise<Result[]> => {
  const words = splitArgs(args);
  const subWord = words.shift() ?? '';
  const sub = subWord.toLowerCase();
  if (sub === 'list') {
    if (words.length > 1) throw new ArgumentError(`%changelog list takes one folder; usage: ${USAGE}`, words[1]);
    const folder = words.length
      ? listedFolder(words[0], session.cwd, session.workspace)
      : storeDir(session.workspace, session.pipeline);
    // A folder given that is not there is a mistake (as for sqlcdc changelog list); the store may not exist yet.
    if (words.length && !statSync(folder, { throwIfNoEntry: false })?.isDirectory())
      throw new ArgumentError(`no folder ${folder}`, words[0], 'runtime');
    const entries = listChangeLogs(folder);
    if (entries.length === 0) {
      const others = words.length ? [] : storedPipelines(session.workspace);
      const hint = others.length ? `; the store has logs of ${others.join(', ')} (%changelog list ${others[0]})` : '';
      return [{ kind: 'message', text: `no change log in ${folder}${hint}` }];
    }
    return [
      { kind: 'table', dataset: changeLogTable(entries), limit: entries.length, title: `change logs in ${folder}` },
    ];
  }
  if (sub === 'show') {
    const { positional, flags } = parseFlags(words, OPTIONS.show, USAGE);
    if (positional.length !== 1)
      throw new ScriptError(`%changelog show needs one change log file or name; usage: ${USAGE}`, 'semantic');
    const file = findLog(session, positional[0]);
    const view = await viewChangeLog(file, session.displayLimit, {
      workspace: session.workspace,
      checkSignature: flags.has('check-signature'),
    });
    return [
      { kind: 'message', text: view.facts.join('\n') },
      ...(['upserts', 'deletes'] as const).map((stream): Result => {
        const { rows, total } = view.streams[stream];
        const shown = rows.rowCount < total ? ` (the first ${rows.rowCount})` : '';
        return {
          kind: 'table',
          dataset: rows,
          limit: Math.max(rows.rowCount, 1),
          title: `${stream}: ${counted(total, 'row')}${shown}`,
        };
      }),
    ];
  }
  if (sub) throw new ArgumentError(`unknown %changelog subcommand '${sub}'; usage: ${USAGE}`, subWord);
  throw new ScriptError(`usage: ${USAGE}`, 'semantic');
};

/**
 * A file relative to the working directory, else a file name in the store that holds logs of its name
 * (as LOAD finds it without PATH); a name without extension is the newest `<name>_<id>.eds` of its
 * folder (that store when it has no folder part).
 */
function findLog(session: MagicHost, given: string): string {
  const bare = basename(given) === given;
  const store = (name: string) =>
    storeDir(session.workspace, storePipelineFor(session.workspace, session.pipeline, name));
  if (extname(given) === '') {
    const folder = bare ? store(given) : resolve(session.cwd, dirname(given));
    const logs = listChangeLogs(folder, basename(given)).filter((e) => parseIdFileName(e.fileName));
    if (logs.length === 0)
      throw new ArgumentError(`no change log named '${basename(given)}' in ${folder}`, given, 'runtime');
    return logs[logs.length - 1].path;
  }
  const local = resolve(session.cwd, given);
  if (existsSync(local)) return local;
  const stored = bare ? join(store(parseIdFileName(given)?.stem ?? given), given) : undefined;
  if (stored && existsSync(stored)) return stored;
  throw new ArgumentError(
    `no change log ${given} in ${session.cwd}${stored ? ` or ${dirname(stored)}` : ''}`,
    given,
    'runtime',
  );
}
