import { ScriptError, toScriptError } from '../errors';
import { lineAndColumn, lineStarts } from '../util/lines';
import { didYouMean } from '../util/suggest';
import { ArgumentError, argWords } from './args';
import type { Result } from '../results';
import { splitCell, type MagicLine } from '../script/cell';
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
import { maskKeepingWidth } from '../workspace/redact';

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
 * `text` (a cell, a job's script) as anyone but its author may read it (an error result's source, an
 * echoed input): the secret arguments of each of its magic lines masked, and the secrets written in its
 * statements, each keeping its width so that positions in it still hold. A `%%` cell's first line is judged as the magic's cell form; its
 * body (a job's script) has magic lines of its own.
 */
export function withoutMagicSecrets(text: string, table: MagicTable): string {
  const cell = cellMagic(text);
  if (cell) {
    const head = text.slice(0, text.length - cell.body.length);
    return masked(head, cell.line, table.find(cell.line.name), 'cell') + withoutMagicSecrets(cell.body, table);
  }
  const shown = splitCell(text).magics.reduce((out, line) => masked(out, line, table.find(line.name), 'line'), text);
  // A statement's secrets too (a URL's password, a CREDENTIALS value), as its error line shows them.
  return maskKeepingWidth(shown);
}

/**
 * `text` with `line`'s secret arguments masked: those `magic`'s `secretArgs` declare (`%var set key
 * s3cret`, `--bearer …`); the others (a job name, a trigger kind, option names) as written. After a
 * subcommand the magic does not know, every word is masked: which of them hold a secret depends on the
 * subcommand meant; so are all of a magic the session does not know (`%conection add … --bearer …`).
 * `form` is the magic's line form or its cell form (`%%job …`, the cell's first line).
 */
function masked(text: string, line: MagicLine, magic: Magic | undefined, form: 'line' | 'cell'): string {
  if (!magic) return withArgs(text, line, line.args.replace(/\S/g, '*'));
  const secret = magic.secretArgs;
  if (!secret) return text;
  const words = argWords(line.args);
  const subcommands = form === 'line' ? magic.words : undefined;
  const first = subcommands && words[0]?.word.toLowerCase();
  const sub = !subcommands ? '' : first !== undefined && subcommands.includes(first) ? first : undefined;
  const spec = form === 'cell' ? magic.cellArgs?.options : sub !== undefined ? magic.options?.[sub] : undefined;
  const from = sub === undefined ? 0 : (secret.positionalFrom?.[sub] ?? Infinity);
  const masks: { at: number; end: number }[] = [];
  let position = 0;
  /**
   * The option before this word: whether it takes the word as its value (else the word is positional
   * too: after a switch, or an option the magic does not know), and whether that value may be a secret.
   */
  let after: { secret: boolean; value: boolean } | undefined;
  for (const w of words.slice(subcommands ? 1 : 0)) {
    const written = line.args.slice(w.at, w.end);
    if (written.startsWith('--')) {
      const eq = written.indexOf('=');
      const name = written.slice(2, eq < 0 ? undefined : eq);
      const kind = spec?.[name];
      const isSecret = kind === undefined || (secret.options?.includes(name) ?? false);
      if (eq >= 0) {
        if (isSecret) masks.push({ at: w.at + eq + 1, end: w.end });
        after = undefined;
      } else after = { secret: isSecret, value: kind === 'value' || kind === 'list' };
      continue;
    }
    const option = after;
    after = undefined;
    if (option?.secret) masks.push(w);
    if (option?.value) continue;
    if (position++ >= from && !option?.secret) masks.push(w);
  }
  let args = line.args;
  for (const { at, end } of masks) args = args.slice(0, at) + args.slice(at, end).replace(/\S/g, '*') + args.slice(end);
  return withArgs(text, line, args);
}

/** `text` with `line`'s arguments replaced by `args`, as wide. */
function withArgs(text: string, line: MagicLine, args: string): string {
  const start = line.offset + line.argsColumn - line.column;
  return text.slice(0, start) + args + text.slice(start + line.args.length);
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
