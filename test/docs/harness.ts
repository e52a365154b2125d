import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Result } from '../../runtime/index';
import type { Session } from '../../runtime/session';
import { parseScript } from '../../runtime/script/parser';

/**
 * The examples of a docs/ page, taken from the page itself so that an edited example is the one that
 * runs. A fenced block's markers are the HTML comments between it and the block before it:
 * `<!-- example: not run — <reason> -->` says why a block cannot run offline (the reason is shown to
 * whoever reads the page), and every other ```sql, ```sh and ```console block must be run by the
 * page's test (`DocPage.take`), which `assertEveryExampleRan` checks.
 */

export const DOCS = resolve(__dirname, '../../../docs');

/** The languages of blocks that are examples to run; other blocks are syntax, data or output. */
export const EXAMPLE_LANGS = new Set(['sql', 'sh', 'console']);

export interface Block {
  lang: string;
  code: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  markers: string[];
  /** The page's text between the block before and this one (the prose that introduces it). */
  before: string;
}

export function docBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  let last = 0;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    const before = markdown.slice(last, m.index);
    const markers = [...before.matchAll(/<!-- ([\s\S]*?) -->/g)].map((c) => c[1].trim());
    const line = markdown.slice(0, m.index).split('\n').length;
    out.push({ lang: m[1], code: m[2], line, markers, before });
    last = fence.lastIndex;
  }
  return out;
}

/** Why a block is not run, when its page says so. */
export function notRunReason(block: Block): string | undefined {
  for (const m of block.markers) {
    const r = /^example: not run — (.+)$/s.exec(m);
    if (r) return r[1].trim();
  }
  return undefined;
}

/** A page's runnable examples: `take` hands out the one whose code starts as given, once. */
export class DocPage {
  readonly blocks: Block[];
  private readonly taken = new Set<Block>();

  constructor(readonly name: string) {
    this.blocks = docBlocks(readFileSync(resolve(DOCS, name), 'utf8'));
  }

  /** The example block starting with `start` (its first line, or more); the test runs it. */
  take(start: string, lang = 'sql'): Block {
    const found = this.blocks.filter((b) => b.lang === lang && b.code.startsWith(start));
    assert.equal(found.length, 1, `${this.name}: one \`\`\`${lang} block starts with ${JSON.stringify(start)}`);
    assert.equal(notRunReason(found[0]), undefined, `${this.name}:${found[0].line} is marked not run`);
    this.taken.add(found[0]);
    return found[0];
  }

  /** The block right after `block` (the output a page shows for an example). */
  after(block: Block): Block {
    return this.blocks[this.blocks.indexOf(block) + 1];
  }

  /** Every example block is run by the test or says why not: a new example cannot go untested. */
  assertEveryExampleRan(): void {
    const missed = this.blocks
      .filter((b) => EXAMPLE_LANGS.has(b.lang) && !this.taken.has(b) && notRunReason(b) === undefined)
      .map((b) => `${this.name}:${b.line} (\`\`\`${b.lang} ${b.code.split('\n')[0]})`);
    assert.deepEqual(missed, [], 'examples neither run by the test nor marked "example: not run — <reason>"');
  }
}

/** The pages of docs/, and whether one has an example block that no marker excuses. */
export function pagesWithExamples(): string[] {
  return readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .filter((f) =>
      docBlocks(readFileSync(resolve(DOCS, f), 'utf8')).some(
        (b) => EXAMPLE_LANGS.has(b.lang) && notRunReason(b) === undefined,
      ),
    );
}

/** The statements of an example, each as written (comments between them dropped with the split). */
export function statementsOf(code: string): string[] {
  const starts = parseScript(code).statements.map((s) => s.pos.offset);
  return starts.map((at, i) => code.slice(at, starts[i + 1] ?? code.length).trim());
}

export interface Outcome {
  said: string[];
  error?: Error;
}

/** Runs a text through Session.execute and collects what it said and whether it failed. */
export async function execute(session: Session, code: string): Promise<Outcome> {
  const said: string[] = [];
  let error: Error | undefined;
  for await (const r of session.execute(code) as AsyncIterable<Result>) {
    if (r.kind === 'message' || r.kind === 'warning') said.push(r.text);
    if (r.kind === 'error') error = r.error;
  }
  return { said, error };
}

/** Runs a text that must succeed; the failure names the page and line of the example. */
export async function runOk(session: Session, code: string, where: string): Promise<Outcome> {
  const outcome = await execute(session, code);
  assert.equal(outcome.error?.message, undefined, `${where} runs: ${code}`);
  return outcome;
}

/** The values of a column of the session's dataset, by name. */
export function columnOf(session: Session, name: string): unknown[] {
  return session.dataset.column(session.dataset.require(name));
}
