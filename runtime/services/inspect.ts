import type { Session } from '../session';
import { typeName } from '../dataset/type-names';
import { redactConnection } from '../workspace/connections';
import { cursorContext, statementWords, wordAround } from './context';
import { functionDoc, languageKeywords, statementDocList, type FunctionDoc, type StatementDoc } from './vocabulary';
import { notAvailableNote } from '../script/docs';
import { unavailableStatements } from './language-docs';
import { counted } from '../util/words';

export interface Inspection {
  found: boolean;
  /** Plain text (REPL, Jupyter text/plain). */
  text: string;
  /** The same as Markdown (Jupyter text/markdown). */
  markdown?: string;
}

const NOT_FOUND: Inspection = { found: false, text: '' };

function doc(title: string, code: string, description: string, example?: string): Inspection {
  const text = [
    title === code ? code : `${title}\n${code}`,
    '',
    description,
    ...(example ? ['', `Example: ${example}`] : []),
  ].join('\n');
  const markdown = [
    `**${title}**`,
    '',
    '```sql',
    code,
    '```',
    '',
    description,
    ...(example ? ['', 'Example:', '', '```sql', example, '```'] : []),
  ].join('\n');
  return { found: true, text, markdown };
}

function functionInspection(d: FunctionDoc): Inspection {
  const aliases = d.aliases.length ? ` Also written ${d.aliases.map((a) => `#${a}`).join(', ')}.` : '';
  return doc(
    d.signature,
    d.signature,
    d.description + aliases,
    d.expected === undefined ? d.example : `${d.example} → ${d.expected}`,
  );
}

function statementInspection(session: Session, d: StatementDoc): Inspection {
  const description = unavailableStatements(session.commands).has(d.keyword)
    ? `${notAvailableNote(d.keyword)}\n\n${d.description}`
    : d.description;
  return doc(d.keyword, d.syntax, description, d.example);
}

/**
 * An option of the statement when the keyword belongs to one rather than to the statement's head:
 * KEEP_EMPTY in APPLY FILTER, APPLY in SELECT … APPLY TX, any spelling the option's syntax lists.
 */
function optionInspection(d: StatementDoc, word: string): Inspection | undefined {
  if (d.keyword.split(' ').includes(word)) return undefined;
  const words = (text: string) => text.split(/[\s|{}]+/).filter((w) => /^[A-Z_]+$/.test(w));
  const o =
    d.options.find((x) => words(x.name).includes(word)) ?? d.options.find((x) => words(x.syntax).includes(word));
  return o && doc(`${o.name} (option of ${d.keyword})`, o.syntax, o.description);
}

/**
 * The statement doc whose keyword words appear, in order, among the statement's words, starting
 * with its first word: `ADD OR ALTER COLUMN` is documented by ADD COLUMN. The doc with the most
 * words wins; among equals, the one matched earliest (SELECT * FROM HTTP before a DRIVE later on).
 */
function statementDocFor(words: string[]): StatementDoc | undefined {
  let best: { d: StatementDoc; size: number; last: number } | undefined;
  for (const d of statementDocList()) {
    const want = d.keyword.toUpperCase().split(/\s+/);
    if (want[0] !== words[0]) continue;
    const last = lastMatched(want, words);
    if (last < 0) continue;
    if (!best || want.length > best.size || (want.length === best.size && last < best.last))
      best = { d, size: want.length, last };
  }
  return best?.d;
}

/** Index in `words` of the last of `want` when all of `want` occur there in order; -1 otherwise. */
function lastMatched(want: string[], words: string[]): number {
  let at = 0;
  for (const w of want) {
    while (at < words.length && words[at] !== w) at++;
    if (at === words.length) return -1;
    at++;
  }
  return at - 1;
}

function columnInspection(session: Session, name: string): Inspection {
  const ds = session.dataset;
  const i = ds.indexOf(name.trim());
  if (i < 0) return NOT_FOUND;
  const c = ds.columns[i];
  const type = typeName(c.type);
  const where = `column ${i + 1} of ${ds.columns.length} of the pipeline dataset (${counted(ds.rowCount, 'row')})`;
  return {
    found: true,
    text: `${c.name}: ${type}\n${where}`,
    markdown: `**${c.name}**: \`${type}\`\n\n${where}`,
  };
}

/**
 * Documentation of what the cursor is on: a statement keyword (the statement's syntax, description
 * and example), a `#`/`@` function, a `%magic`, a `[connection]` (secrets redacted) or a column of
 * the live dataset (its type). The REPL's `.doc` and Jupyter's inspect_request both call this.
 */
export function inspect(session: Session, code: string, cursor: number): Inspection {
  // A cursor right after a connection's `]` is on it, as a cursor after a word is on that word:
  // `.doc [my api]` puts it there.
  if (code[cursor - 1] === ']' && cursorContext(code, cursor - 1).region === 'bracket') cursor -= 1;
  const ctx = cursorContext(code, cursor);
  if (ctx.region === 'comment') return NOT_FOUND;

  if (ctx.region === 'bracket') {
    const close = code.indexOf(']', cursor);
    const name = code.slice(ctx.regionStart, close < 0 ? code.length : close);
    const c = session.connections.find(name);
    if (!c) return NOT_FOUND;
    const settings = JSON.stringify(redactConnection(c), null, 2);
    return {
      found: true,
      text: `[${c.name}] ${c.kind} connection\n${settings}`,
      markdown: `**[${c.name}]** ${c.kind} connection\n\n\`\`\`json\n${settings}\n\`\`\``,
    };
  }

  if (ctx.region === 'template') {
    const close = code.indexOf('}}', cursor);
    const inner = code.slice(ctx.regionStart, close < 0 ? code.length : close);
    return columnInspection(session, inner.slice(inner.indexOf(':') + 1));
  }

  const word = wordAround(code, cursor);
  if (!word.text) return NOT_FOUND;
  if (word.sigil === '#' || word.sigil === '@') {
    const d = functionDoc(word.text);
    return d ? functionInspection(d) : NOT_FOUND;
  }
  if (ctx.region === 'magic') {
    // Anywhere on a magic line (its name, a subcommand, an option): that magic's documentation.
    const name = /^%%?([^\s%]+)/.exec(code.slice(ctx.regionStart))?.[1];
    const m = name === undefined ? undefined : session.magics.find(name);
    return m ? doc(`%${m.name}`, m.usage, m.description + (m.words ? ` (${m.words.join(', ')})` : '')) : NOT_FOUND;
  }

  const isKeyword = ctx.region === 'code' && languageKeywords().includes(word.text.toUpperCase());
  if (!isKeyword) return columnInspection(session, word.text);
  const d = statementDocFor(statementWords(code, ctx.statementStart));
  if (d) return optionInspection(d, word.text.toUpperCase()) ?? statementInspection(session, d);
  // No statement around the word (`.doc KEEP_EMPTY`): the first statement whose head or options have it.
  const upper = word.text.toUpperCase();
  const head = statementDocList().find((s) => s.keyword.split(' ').includes(upper));
  if (head) return statementInspection(session, head);
  for (const s of statementDocList()) {
    const option = optionInspection(s, upper);
    if (option) return option;
  }
  return columnInspection(session, word.text);
}
