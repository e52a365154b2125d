import type { IToken } from 'chevrotain';
import { ScriptError } from '../errors';
import type { Script, Statement } from './ast';
import { COMMAND_WORDS, COMMANDS, matchHead, type CommandDef } from './commands';
import { bodyError, isKeywordToken, parseBody } from './failures';
import { NESTED_TOO_DEEPLY, NESTING_LIMIT } from './limits';
import { list } from './options';
import { SourceText } from './source';
import { didYouMean } from '../util/suggest';
import { describeToken, endOf, Identifier, keywordNames, lexRange, problemOf, Semicolon, VALUE_WORDS } from './tokens';

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
  return { statements: parseRange(source, startOffset, text.length, 0) };
}

/** `level`: how many pipelines enclose the range (bounded: pipelines parse and run recursively). */
function parseRange(source: SourceText, start: number, end: number, level: number): Statement[] {
  return splitStatements(lexRange(source, start, end)).map((tokens) => parseStatement(source, tokens, level));
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

function parseStatement(source: SourceText, tokens: IToken[], level: number): Statement {
  const head = matchHead(tokens);
  const keyword = head.kind === 'match' ? head.command.keyword : undefined;
  for (const t of tokens) {
    const problem = problemOf(t, source);
    if (problem) throw source.error(problem.message, problem.offset, 'syntax', keyword);
  }
  if (head.kind === 'mismatch')
    throw headError(
      source,
      tokens,
      head.index,
      head.expected.map((t) => t.name),
    );

  const { command } = head;
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  const pos = source.position(first.startOffset);
  const result = parseBody(source, tokens, command, head.length);
  if (!('body' in result)) throw bodyError(source, tokens, command, head.length, result);
  const { body } = result;
  command.fromHead?.(body, tokens.slice(0, head.length));

  const statement = {
    ...body,
    keyword: command.keyword,
    pos,
    source: source.text.slice(first.startOffset, endOf(last)),
  };
  // Pipelines are parsed after their enclosing statement: the grammar instance is not re-entrant.
  const pipeline =
    statement.kind === 'ApplyPipeline' ? statement : 'pipeline' in statement ? statement.pipeline : undefined;
  if (pipeline) {
    if (level >= NESTING_LIMIT) throw new ScriptError(NESTED_TOO_DEEPLY, 'syntax', pipeline.pos, 'APPLY PIPELINE');
    const { offset } = pipeline.body.pos;
    pipeline.statements = parseRange(source, offset, offset + pipeline.body.value.length, level + 1);
  }
  return statement;
}

function headError(source: SourceText, tokens: IToken[], index: number, expected: string[]): ScriptError {
  const found = tokens[index];
  const offset = found ? found.startOffset : endOf(tokens[index - 1]);
  if (index === 0) {
    // Magic lines are split off the top of a cell only (cell.ts): one further down reaches the parser.
    const magic = found.image === '%' ? /^%%?\w*/.exec(source.text.slice(offset))?.[0] : undefined;
    if (magic) {
      return source.error(
        `a %magic line must come before the cell's statements: put ${magic} at the top, or in a cell of its own`,
        offset,
      );
    }
    const word = found.tokenType === Identifier || isKeywordToken(found);
    const what = word ? `unknown command '${found.image}'` : `expected a command but found ${describeToken(found)}`;
    const near = word ? didYouMean(found.image, COMMAND_WORDS) : '';
    return source.error(`${what}: a statement starts with ${list(COMMAND_WORDS)}${near}`, offset);
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

/** Every keyword and value word of the language, for completion. */
export function keywords(): string[] {
  return [...new Set([...keywordNames(), ...VALUE_WORDS])].sort();
}

/** The command definitions (heads, options, docs), e.g. for %help. */
export function commands(): readonly CommandDef[] {
  return COMMANDS;
}
