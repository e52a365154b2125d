import { ScriptError, toScriptError } from '../errors';
import { lineAndColumn, lineStarts } from '../util/lines';
import { didYouMean } from '../util/suggest';
import { ArgumentError, argWords } from './args';
import type { Result } from '../results';
import type { MagicLine } from '../script/cell';
import { MagicTable, type Magic, type MagicHost } from './magic';
import { limitMagic, pipelineMagic, resetMagic, workspaceMagic } from './session-magics';
import { changelogMagic } from './changelog-info';
import { connectionMagic } from './connection';
import { listing } from './listing';
import { describeMagic } from './describe-info';
import { plotMagic } from './plot';
import { varMagic } from './var';
import { webhookMagic } from './webhook';
import { jobMagic } from './job-info';
import { onFirstUse } from '../util/first-use';

/** %help lists this table, so it lives beside it. */
const helpMagic: Magic = {
  name: 'help',
  usage: '%help',
  description: 'lists the magics; SQL CDC statements and functions are documented in docs/',
  run: (session): Result[] => [
    listing(
      ['magic', 'description'],
      session.magics.all().map((m) => [m.usage, m.description]),
      'Magics',
    ),
  ],
};

const job = () => import('./job');

/**
 * The magics; the code of those that pull much (the job runner, change log reading, profiling) loads
 * on their first use, not with every session: their name, usage and words are at hand without it.
 */
const MAGICS: readonly Magic[] = [
  helpMagic,
  { ...changelogMagic, run: onFirstUse(async () => (await import('./changelog')).run) },
  connectionMagic,
  { ...describeMagic, run: onFirstUse(async () => (await import('./describe')).run) },
  {
    ...jobMagic,
    run: onFirstUse(async () => (await job()).run),
    cell: onFirstUse(async () => (await job()).cell),
  },
  limitMagic,
  pipelineMagic,
  plotMagic,
  resetMagic,
  varMagic,
  webhookMagic,
  workspaceMagic,
];

/** The language's magics and a front end's own (the kernel's %connect_info). */
export function magicTable(extra: readonly Magic[] = []): MagicTable {
  return new MagicTable([...MAGICS, ...extra]);
}

/**
 * Runs a magic line. Its errors are placed as statements' are: at the argument an ArgumentError names,
 * else at the `%`; an error placed already (in a job's script) keeps its place.
 */
export async function* runMagic(session: MagicHost, line: MagicLine): AsyncGenerator<Result> {
  try {
    const magic = session.magics.find(line.name);
    if (!magic) {
      const known = session.magics.all().map((m) => `%${m.name}`);
      throw new ScriptError(
        `unknown magic %${line.name} (known: ${known.join(', ')})${didYouMean(`%${line.name}`, known)}`,
        'semantic',
      );
    }
    // A magic whose usage shows no argument takes none: an extra word is a mistake, not ignored.
    const extra = magic.usage === `%${magic.name}` ? argWords(line.args)[0] : undefined;
    if (extra) throw new ArgumentError(`%${magic.name} takes no arguments; usage: ${magic.usage}`, extra.word);
    const results = await magic.run(session, line.args, line);
    for await (const r of results as AsyncIterable<Result>) yield r;
  } catch (e) {
    throw placed(e, line);
  }
}

/** A magic's error placed as a statement's: at the argument an ArgumentError names, else at the `%`. */
function placed(e: unknown, line: MagicLine): ScriptError {
  const error = toScriptError(e);
  const at = error instanceof ArgumentError ? argumentAt(line.args, error.argument) : undefined;
  const column = at === undefined ? line.column : line.argsColumn + at;
  return error.locate({ line: line.line, column, offset: line.offset + column - line.column });
}

/** Where an argument is written: the word itself, a `--flag=` or `name=` word with it as its value, or the text. */
function argumentAt(args: string, argument: string): number | undefined {
  const words = argWords(args);
  const word = words.find((w) => w.word === argument) ?? words.find((w) => w.word.endsWith(`=${argument}`));
  if (word) return word.word === argument ? word.at : word.valueAt;
  const i = args.indexOf(argument);
  return i < 0 ? undefined : i;
}

/**
 * The cell as an error of a magic whose arguments may hold a secret (`%var set key s3cret`, `--bearer …`)
 * shows it under the caret: each argument is masked, keeping its width, unless it is the subcommand, a
 * `--flag`'s name or a word the message shows anyway.
 */
export function magicErrorSource(text: string, line: MagicLine, message: string): string {
  const start = line.offset + line.argsColumn - line.column;
  const end = start + line.args.length;
  let args = line.args;
  for (const [i, w] of argWords(line.args).entries()) {
    const written = args.slice(w.at, w.end);
    let keep = i === 0 || message.includes(w.word) ? written.length : 0;
    if (!keep && written.startsWith('--')) keep = written.includes('=') ? written.indexOf('=') + 1 : written.length;
    args = args.slice(0, w.at + keep) + written.slice(keep).replace(/\S/g, '*') + args.slice(w.end);
  }
  return text.slice(0, start) + args + text.slice(end);
}

/** A cell whose first line is `%%name args`: that line (where its `%%` and arguments are), the rest of the cell, and the cell. */
export interface CellMagic {
  line: MagicLine;
  body: string;
  text: string;
}

/** A cell whose first line is `%%name args`: that line (where its `%%` and arguments are) and the rest of the cell. */
export function cellMagic(text: string): CellMagic | undefined {
  const m = /^(\s*)%%(\S+)([ \t]*)([^\r\n]*)(?:\r\n?|\n)?([\s\S]*)$/.exec(text);
  if (!m) return undefined;
  const [, blank, name, gap, args, body] = m;
  const offset = blank.length;
  const { line, column } = lineAndColumn(lineStarts(text), offset);
  return {
    line: { name, args: args.trimEnd(), line, column, offset, argsColumn: column + 2 + name.length + gap.length },
    body,
    text,
  };
}

/** Runs a cell magic; its errors are placed on its first line as a magic line's are. */
export async function* runCellMagic(session: MagicHost, cell: CellMagic): AsyncGenerator<Result> {
  const { name, args } = cell.line;
  try {
    const magic = session.magics.find(name);
    if (!magic?.cell) {
      const known = session.magics
        .all()
        .filter((m) => m.cell !== undefined)
        .map((m) => `%%${m.name}`)
        .join(', ');
      throw new ScriptError(`unknown cell magic %%${name} (known: ${known || 'none'})`, 'semantic');
    }
    yield* await magic.cell(session, args, cell.body, {
      text: cell.text,
      bodyOffset: cell.text.length - cell.body.length,
    });
  } catch (e) {
    throw placed(e, cell.line);
  }
}
