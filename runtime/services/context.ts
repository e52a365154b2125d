/**
 * Where a cursor stands in a cell, for completion and inspection. This is a tolerant lexical scan,
 * not the parser: the text around a cursor is usually unfinished (an open quote, a half-typed
 * keyword), which the parser rightly rejects.
 */

import { splitCell } from '../script/cell';
import { endsLine, lineStartBefore } from '../util/lines';

/** What encloses the cursor. */
export type Region =
  | 'code' // statement text outside any quote
  | 'string' // inside '…' or "…"
  | 'bracket' // inside [connection name
  | 'template' // inside {{field
  | 'comment' // after --
  | 'magic'; // on a %magic line at the top of the cell

export interface CursorContext {
  region: Region;
  /** Where the content of the enclosing string / bracket / template / magic line starts. */
  regionStart: number;
  /** Where the statement holding the cursor starts (after the previous `;`). */
  statementStart: number;
  /** The statement's words outside quotes before the region (or the cursor), uppercased. */
  words: string[];
}

const WORD_CHAR = /[A-Za-z0-9_.$]/;
const SIGILS = '#@%';

/**
 * Where the cell's last magic line ends (0 when there is none), as Session.execute splits them:
 * statement text, comments included, is scanned from there.
 */
export function magicBlockEnd(code: string): number {
  return splitCell(code).magicsEnd;
}

export function cursorContext(code: string, cursor: number): CursorContext {
  const body = magicBlockEnd(code);
  if (cursor <= body) {
    const lineStart = lineStartBefore(code, cursor);
    const line = code.slice(lineStart, cursor);
    const indent = line.length - line.trimStart().length;
    if (line.trimStart().startsWith('%')) {
      return { region: 'magic', regionStart: lineStart + indent, statementStart: lineStart, words: [] };
    }
  }
  return scan(code, body, cursor, false);
}

/** The words outside quotes of the statement starting at `statementStart`, up to its `;`. */
export function statementWords(code: string, statementStart: number): string[] {
  return scan(code, statementStart, code.length, true).words;
}

function scan(code: string, from: number, to: number, stopAtSemicolon: boolean): CursorContext {
  let region: Region = 'code';
  let regionStart = from;
  let quote = '';
  let statementStart = from;
  let words: string[] = [];
  let word = '';
  /** The region a template was opened from, to return to after `}}`. */
  let outer: Region = 'code';

  const endWord = () => {
    if (word) words.push(word.toUpperCase());
    word = '';
  };

  for (let i = from; i < to; i++) {
    const ch = code[i];
    switch (region) {
      case 'comment':
        if (endsLine(code, i)) region = 'code';
        continue;
      case 'bracket':
        if (ch === ']') region = 'code';
        continue;
      case 'template':
        if (ch === '}' && code[i + 1] === '}' && i + 1 < to) {
          region = outer;
          i++;
        }
        continue;
      case 'string':
        if (ch === '{' && code[i + 1] === '{' && i + 1 < to) {
          outer = 'string';
          region = 'template';
          regionStart = i + 2;
          i++;
        } else if (ch === quote) {
          // '' inside a single-quoted string is an escaped quote, not its end.
          if (quote === "'" && code[i + 1] === "'" && i + 1 < to) i++;
          else region = 'code';
        }
        continue;
      case 'code':
        if (WORD_CHAR.test(ch)) {
          word += ch;
          continue;
        }
        endWord();
        if (ch === ';') {
          if (stopAtSemicolon) return { region, regionStart, statementStart, words };
          statementStart = i + 1;
          words = [];
        } else if (ch === '-' && code[i + 1] === '-') {
          region = 'comment';
          i++;
        } else if (ch === "'" || ch === '"') {
          region = 'string';
          quote = ch;
          regionStart = i + 1;
        } else if (ch === '[' && !/[A-Za-z0-9\]]/.test(code[i - 1] ?? ' ')) {
          // `[` right after a word is a type size (string[50]), not a connection name.
          region = 'bracket';
          regionStart = i + 1;
        } else if (ch === '{' && code[i + 1] === '{' && i + 1 < to) {
          outer = 'code';
          region = 'template';
          regionStart = i + 2;
          i++;
        } else if (ch === '*') {
          words.push('*');
        }
        continue;
    }
  }
  if (region === 'code') endWord();
  return { region, regionStart, statementStart, words };
}

/** The identifier-like word ending at the cursor, with its sigil (#, @ or %) when it has one. */
export function wordBefore(code: string, cursor: number): { start: number; text: string; sigil: string } {
  let start = cursor;
  while (start > 0 && WORD_CHAR.test(code[start - 1])) start--;
  const sigil = start > 0 && SIGILS.includes(code[start - 1]) ? code[start - 1] : '';
  return { start: start - sigil.length, text: code.slice(start, cursor), sigil };
}

/** The end of the word the cursor is in (so a completion replaces the whole word). */
export function wordEnd(code: string, cursor: number): number {
  let end = cursor;
  while (end < code.length && WORD_CHAR.test(code[end])) end++;
  return end;
}

/** The whole word around the cursor (for inspection), with its sigil. */
export function wordAround(code: string, cursor: number): { start: number; end: number; text: string; sigil: string } {
  const end = wordEnd(code, cursor);
  const w = wordBefore(code, end);
  return { start: w.start, end, text: w.text, sigil: w.sigil };
}
