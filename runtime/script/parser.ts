import type { IRecognitionException, IToken } from 'chevrotain';
import { EOF } from './chevrotain';
import { ScriptError } from '../errors';
import type { Script, Statement } from './ast';
import { COMMAND_WORDS, COMMANDS, matchHead, type CommandDef } from './commands';
import { grammar } from './grammar';
import { list } from './options';
import { SourceText } from './source';
import {
  describeToken, endOf, Identifier, isKeyword, keywordNames, lexRange, problemOf, Semicolon, VALUE_WORDS,
} from './tokens';

export { statementDocs, type StatementDoc } from './docs';

/**
 * Parses a cell. `text` is the whole cell and parsing starts at `startOffset` (the session passes the
 * offset after its leading %magic lines), so every position — line, column and offset — is in the
 * cell's coordinates, the ones the front ends show carets in. Statements are separated by `;`; the
 * last one may omit it. Throws a ScriptError ('syntax', or 'semantic' for an unknown option, a bad
 * number, a missing required option…) naming the statement when it is known.
 */
export function parseScript(text: string, startOffset = 0): Script {
  const source = new SourceText(text);
  return { statements: parseRange(source, startOffset, text.length) };
}

function parseRange(source: SourceText, start: number, end: number): Statement[] {
  return splitStatements(lexRange(source, start, end)).map((tokens) => parseStatement(source, tokens));
}

/** Top-level `;` tokens end statements (a `;` inside a string or block is part of that token). */
function splitStatements(tokens: IToken[]): IToken[][] {
  const statements: IToken[][] = [];
  let current: IToken[] = [];
  for (const t of tokens) {
    if (t.tokenType !== Semicolon) current.push(t);
    else if (current.length) {
      statements.push(current);
      current = [];
    }
  }
  if (current.length) statements.push(current);
  return statements;
}

function parseStatement(source: SourceText, tokens: IToken[]): Statement {
  const head = matchHead(tokens);
  const keyword = head.kind === 'match' ? head.command.keyword : undefined;
  for (const t of tokens) {
    const problem = problemOf(t, source);
    if (problem) throw source.error(problem.message, problem.offset, 'syntax', keyword);
  }
  if (head.kind === 'mismatch') throw headError(source, tokens, head.index, head.expected.map((t) => t.name));

  const { command } = head;
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  const pos = source.position(first.startOffset);
  const body = grammar.parseBody(command.rule, tokens.slice(head.length), source, command.keyword, pos);
  if (!body || grammar.errors.length) throw grammarError(source, tokens, command, grammar.errors[0]);
  command.fromHead?.(body, tokens.slice(0, head.length));

  const statement = {
    ...body,
    keyword: command.keyword,
    pos,
    source: source.text.slice(first.startOffset, endOf(last)),
  };
  // Pipelines are parsed after their enclosing statement: the grammar instance is not re-entrant.
  const pipeline = statement.kind === 'ApplyPipeline' ? statement : 'pipeline' in statement ? statement.pipeline : undefined;
  if (pipeline) pipeline.statements = parseRange(source, pipeline.body.pos.offset, pipeline.body.pos.offset + pipeline.body.value.length);
  return statement;
}

function headError(source: SourceText, tokens: IToken[], index: number, expected: string[]): ScriptError {
  const found = tokens[index];
  const offset = found ? found.startOffset : endOf(tokens[index - 1]);
  if (index === 0) {
    const word = found.tokenType === Identifier || isKeywordToken(found);
    const what = word ? `unknown command '${found.image}'` : `expected a command but found ${describeToken(found)}`;
    return source.error(`${what}: a statement starts with ${list(COMMAND_WORDS)}`, offset);
  }
  const after = tokens[index - 1].image.toUpperCase();
  return source.error(
    `expected ${list(expected.map(readable))} after ${after} but found ${describeToken(found)}`,
    offset,
    'syntax',
    tokens[0].image.toUpperCase(),
  );
}

function readable(name: string): string {
  return name === 'Star' ? "'*'" : name;
}

function grammarError(source: SourceText, tokens: IToken[], command: CommandDef, e: IRecognitionException): ScriptError {
  const atEnd = e.token.tokenType === EOF;
  const index = atEnd ? tokens.length : tokens.indexOf(e.token);
  const previous = tokens[index - 1];
  const offset = atEnd ? endOf(previous) : e.token.startOffset;
  const found = describeToken(atEnd ? undefined : e.token);
  if (e.name === 'NotAllInputParsedException') {
    const names = command.options.options.map((o) => o.name);
    const expected = names.length ? `';' or an option of ${command.keyword} (${names.join(', ')})` : "';'";
    // A word where an option may stand is most likely a misspelt or misplaced option.
    const word = e.token.tokenType === Identifier || (isKeywordToken(e.token) && !COMMAND_WORDS.includes(e.token.image.toUpperCase()));
    return source.error(`expected ${expected} but found ${found}`, offset, word ? 'semantic' : 'syntax', command.keyword);
  }
  const after = previous && isKeywordToken(previous) ? ` after ${previous.image.toUpperCase()}` : '';
  return source.error(`${e.message}${after} but found ${found}`, offset, 'syntax', command.keyword);
}

function isKeywordToken(t: IToken): boolean {
  return t.tokenType !== Identifier && isKeyword(t.image);
}

/** Every keyword and value word of the language, for completion. */
export function keywords(): string[] {
  return [...new Set([...keywordNames(), ...VALUE_WORDS])].sort();
}

/** The command definitions (heads, options, docs), e.g. for %help. */
export function commands(): readonly CommandDef[] {
  return COMMANDS;
}

