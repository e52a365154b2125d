import type { IRecognitionException, IToken, TokenType } from 'chevrotain';
import { EOF } from './chevrotain';
import { ScriptError } from '../errors';
import { COMMAND_WORDS, matchHead, type CommandDef } from './commands';
import { grammar, type StatementBody } from './grammar';
import { list } from './options';
import type { SourceText } from './source';
import { describeToken, endOf, Identifier, isKeyword } from './tokens';

/**
 * Parsing one statement's body, and the error reported when it does not parse: where it failed and a
 * message in the user's terms — above all a missing ';' between two statements, which the grammar
 * alone would report as a strange word inside the first one.
 */

export type BodyResult =
  | { body: StatementBody }
  /** `index`: the token the parse failed at (tokens.length: the end of the statement). */
  | { index: number; failure: ScriptError | IRecognitionException };

/** Parses the tokens after the head of `command` (`tokens` is the whole statement). */
export function parseBody(source: SourceText, tokens: IToken[], command: CommandDef, headLength: number): BodyResult {
  try {
    const body = grammar.parseBody(
      command.rule,
      tokens.slice(headLength),
      source,
      command.keyword,
      source.position(endOf(tokens[tokens.length - 1])),
    );
    const e = grammar.errors[0];
    if (body && !e) return { body };
    return { index: e.token.tokenType === EOF ? tokens.length : tokens.indexOf(e.token), failure: e };
  } catch (e) {
    // A semantic check (an option given twice, a bad value) failed at its token.
    if (!(e instanceof ScriptError) || !e.position) throw e;
    const offset = e.position.offset;
    const index = tokens.findIndex((t) => offset < endOf(t));
    return { index: index < 0 ? tokens.length : index, failure: e };
  }
}

/** The error for a statement whose body failed as `result` says. */
export function bodyError(
  source: SourceText,
  tokens: IToken[],
  command: CommandDef,
  headLength: number,
  result: Extract<BodyResult, { index: number }>,
): ScriptError {
  const missing = missingSemicolon(source, tokens, command, headLength, result.index);
  if (missing) return missing;
  if (result.failure instanceof ScriptError) return result.failure;
  return grammarError(source, tokens, command, headLength, result.index, result.failure);
}

/**
 * A statement that fails where another statement starts: most likely the ';' before it is missing. It
 * is when the tokens before that word form a whole statement and the statement cannot go on with it:
 * - the word cannot follow at all (PRINT after PRINT);
 * - it starts a command head that no clause of the statement starts with (APPLY FILTER after a SELECT,
 *   whose clauses are APPLY TX and APPLY PIPELINE), or one the statement already has (a second APPLY TX);
 * - it starts a line and a statement that gets further than the clause it could also begin (APPLY TX
 *   … ON 'col' after a SELECT, whose APPLY TX clause has no ON).
 * A word that continues the statement on its line (APPLY TX with a bad path) keeps the grammar's
 * message. `errorIndex` is the token the body failed at.
 */
function missingSemicolon(
  source: SourceText,
  tokens: IToken[],
  command: CommandDef,
  headLength: number,
  errorIndex: number,
): ScriptError | undefined {
  for (let i = Math.min(errorIndex, tokens.length - 1); i >= headLength && i > 0; i--) {
    const word = tokens[i];
    if (!isKeywordToken(word) || !COMMAND_WORDS.includes(word.image.toUpperCase())) continue;
    const next = matchHead(tokens.slice(i));
    let startsStatement: boolean;
    if (next.kind === 'mismatch') {
      startsStatement =
        i === errorIndex && !nextTokenTypes(command, tokens.slice(headLength, i)).includes(word.tokenType);
    } else {
      const ownLine = source.position(word.startOffset).line > source.position(endOf(tokens[i - 1])).line;
      startsStatement =
        errorIndex < i + next.length ||
        (ownLine && i + reach(source, tokens.slice(i), next.command, next.length) > errorIndex);
    }
    const before = tokens.slice(0, i);
    if (!startsStatement || reach(source, before, command, headLength) !== Infinity) continue;
    const start = source.position(tokens[0].startOffset);
    return source.error(
      `expected ';' after ${command.keyword} (line ${start.line})`,
      endOf(tokens[i - 1]),
      'syntax',
      command.keyword,
    );
  }
  return undefined;
}

/** The token a statement of `command` made of `tokens` fails at (tokens.length: the end), Infinity if none. */
function reach(source: SourceText, tokens: IToken[], command: CommandDef, headLength: number): number {
  const result = parseBody(source, tokens, command, headLength);
  return 'body' in result ? Infinity : result.index;
}

function grammarError(
  source: SourceText,
  tokens: IToken[],
  command: CommandDef,
  headLength: number,
  index: number,
  e: IRecognitionException,
): ScriptError {
  const atEnd = index === tokens.length;
  const deeper =
    e.name === 'NotAllInputParsedException' ? undefined : deeperFailure(tokens, command, headLength, index);
  if (deeper) {
    const at = tokens[deeper.index] as IToken | undefined;
    const previous = tokens[deeper.index - 1];
    const message = `expected ${list(deeper.expected.map(label))} after ${previous.image.toUpperCase()} but found ${describeToken(at)}`;
    return source.error(message, at ? at.startOffset : endOf(previous), 'syntax', command.keyword);
  }
  const previous = tokens[index - 1];
  const offset = atEnd ? endOf(previous) : e.token.startOffset;
  const found = describeToken(atEnd ? undefined : e.token);
  if (e.name === 'NotAllInputParsedException') {
    const names = command.options.options.map((o) => o.name);
    const expected = names.length ? `';' or an option of ${command.keyword} (${names.join(', ')})` : "';'";
    // A word where an option may stand is most likely a misspelt or misplaced option.
    const word =
      e.token.tokenType === Identifier ||
      (isKeywordToken(e.token) && !COMMAND_WORDS.includes(e.token.image.toUpperCase()));
    return source.error(
      `expected ${expected} but found ${found}`,
      offset,
      word ? 'semantic' : 'syntax',
      command.keyword,
    );
  }
  const after = previous && isKeywordToken(previous) ? ` after ${previous.image.toUpperCase()}` : '';
  return source.error(`${e.message}${after} but found ${found}`, offset, 'syntax', command.keyword);
}

/**
 * The grammar looks a few tokens ahead to pick a clause, so `APPLY FOO` in a SELECT fails at APPLY
 * although APPLY may follow: the failure is where the tokens stop fitting any clause (FOO, where TX
 * or PIPELINE would), found by walking the accepted tokens one by one.
 */
function deeperFailure(
  tokens: IToken[],
  command: CommandDef,
  headLength: number,
  index: number,
): { index: number; expected: TokenType[] } | undefined {
  for (let k = index; k <= tokens.length; k++) {
    const expected = nextTokenTypes(command, tokens.slice(headLength, k));
    if (k === tokens.length || !expected.includes(tokens[k].tokenType))
      return k > index && expected.length ? { index: k, expected } : undefined;
  }
  return undefined;
}

/** The token types the statement's grammar accepts after `body` (the tokens after its head). */
function nextTokenTypes(command: CommandDef, body: IToken[]): TokenType[] {
  return [...new Set(grammar.computeContentAssist(command.rule, body).map((p) => p.nextTokenType))];
}

function label(t: TokenType): string {
  return t.LABEL ?? t.name;
}

export function isKeywordToken(t: IToken): boolean {
  return t.tokenType !== Identifier && isKeyword(t.image);
}
