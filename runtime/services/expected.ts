import type { IToken, TokenType } from 'chevrotain';
import { COMMAND_WORDS, COMMANDS, matchHead, type CommandDef } from '../script/commands';
import { FILTER_MODES, grammar, type BodyRule } from '../script/grammar';
import {
  APPLY_PIPELINE,
  DB_SECTION_OPTIONS,
  HTTP_SECTION_OPTIONS,
  TRACE_OPTIONS,
  type OptionDef,
  type OptionSet,
  type ValueKind,
} from '../script/options';
import { SourceText } from '../script/source';
import { KW, lexRange, Semicolon, Star, UnclosedBlock, type KeywordName } from '../script/tokens';

/**
 * What the grammar allows at a point of a cell, for completion. It lexes the text before the point
 * with the parser's lexer and asks the parser's own grammar (chevrotain's content assist over the
 * statement rules, which are built from the command and option tables), so what completion offers
 * cannot drift from what parses. Lexing and the grammar walk are cheap; nothing is parsed.
 */
export type Expected =
  /** Keywords that may come next, and values of the option just before (as written: CSV, 'page'). */
  | { kind: 'words'; keywords: string[]; values: readonly string[] }
  /** Inside APPLY SCHEMA ( … ): type names and columns. */
  | { kind: 'schema' }
  /** Inside APPLY FILTER ( … ): a filter expression over the columns. */
  | { kind: 'expression' }
  /** Inside another block (native SQL, a payload, an HTTP command): nothing to offer. */
  | { kind: 'none' };

interface HeadWord {
  word: string;
  optional: boolean;
}

const HEADS: HeadWord[][] = COMMANDS.flatMap((c) =>
  c.heads.map((h) => h.split(' ').map((w) => ({ word: w.replace(/\?$/, ''), optional: w.endsWith('?') }))),
);

/** Option sets a value opens: TRACE's options follow TRACE, a section's follow ON_UPSERT (…)… */
const NESTED: Partial<Record<ValueKind, OptionSet<never>>> = {
  trace: TRACE_OPTIONS,
  httpSection: HTTP_SECTION_OPTIONS,
  dbSection: DB_SECTION_OPTIONS,
  pipeline: APPLY_PIPELINE,
};

/** Words a statement body starts with that the grammar reads as a plain name, not a keyword. */
const LEADING_WORDS: Partial<Record<BodyRule, readonly string[]>> = { applyFilter: FILTER_MODES };

/** What may stand at `to` in `code`, whose statements start at `from` (after the %magic lines). */
export function expectedAt(code: string, from: number, to: number): Expected {
  const source = new SourceText(code);
  let tokens = statementBefore(lexRange(source, from, to));
  for (;;) {
    const last = tokens[tokens.length - 1];
    if (last?.tokenType !== UnclosedBlock) return { kind: 'words', ...nextWords(tokens) };
    const before = tokens[tokens.length - 2]?.tokenType;
    if (before === KW.PIPELINE) {
      tokens = statementBefore(lexRange(source, last.startOffset + 1, to));
      continue;
    }
    if (before === KW.SCHEMA) return { kind: 'schema' };
    return isFilterExpression(tokens) ? { kind: 'expression' } : { kind: 'none' };
  }
}

/** The tokens of the last statement (after the last top-level `;`). */
function statementBefore(tokens: IToken[]): IToken[] {
  let i = tokens.length;
  while (i > 0 && tokens[i - 1].tokenType !== Semicolon) i--;
  return tokens.slice(i);
}

/** APPLY FILTER { SQL } ( <expression> …: the open block is the expression. */
function isFilterExpression(tokens: IToken[]): boolean {
  const head = matchHead(tokens);
  if (head.kind !== 'match' || head.command.rule !== 'applyFilter') return false;
  const body = tokens.slice(head.length, -1);
  return body.length === 0 || (body.length === 1 && body[0].image.toUpperCase() === 'SQL');
}

function nextWords(tokens: IToken[]): { keywords: string[]; values: readonly string[] } {
  if (tokens.length === 0) return { keywords: COMMAND_WORDS, values: [] };
  const keywords = new Set(headContinuations(tokens));
  let values: readonly string[] = [];
  const head = matchHead(tokens);
  if (head.kind === 'match') {
    const { command } = head;
    const body = tokens.slice(head.length);
    let name = false;
    for (const path of grammar.computeContentAssist(command.rule, body)) {
      const next = path.nextTokenType;
      if (next === Star) keywords.add('*');
      else if (isKeywordType(next)) keywords.add(next.name);
      else name = true;
    }
    // A name or string is next: the option before it may have a closed list of values.
    if (name)
      values = optionBefore(command, body)?.values ?? (body.length === 0 ? (LEADING_WORDS[command.rule] ?? []) : []);
  }
  return { keywords: [...keywords], values };
}

function isKeywordType(t: TokenType): boolean {
  return KW[t.name as KeywordName] === t;
}

/** The words that continue `tokens` into a command's head (APPLY → TX, SCHEMA…; SELECT * FROM → HTTP, DB, DRIVE). */
function headContinuations(tokens: IToken[]): string[] {
  const out: string[] = [];
  const walk = (head: HeadWord[], i: number, t: number): void => {
    if (i === head.length) return;
    if (t === tokens.length) out.push(head[i].word);
    else if (tokens[t].image.toUpperCase() === head[i].word) walk(head, i + 1, t + 1);
    if (head[i].optional) walk(head, i + 1, t);
  };
  for (const head of HEADS) walk(head, 0, 0);
  return out;
}

/** The option (of the statement or a set nested in it) whose keywords end `body`. */
function optionBefore(command: CommandDef, body: IToken[]): OptionDef<never> | undefined {
  for (const def of optionsOf(command.options, new Set())) {
    for (const spelling of def.spellings) {
      const start = body.length - spelling.length;
      if (start >= 0 && spelling.every((type, i) => body[start + i].tokenType === type)) return def;
    }
  }
  return undefined;
}

function* optionsOf(set: OptionSet<never>, seen: Set<OptionSet<never>>): Generator<OptionDef<never>> {
  seen.add(set);
  for (const def of set.options) {
    yield def;
    const nested = NESTED[def.value];
    if (nested && !seen.has(nested)) yield* optionsOf(nested, seen);
  }
}
