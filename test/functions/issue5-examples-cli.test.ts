import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allFunctions } from '../../runtime/functions/registry';
import type { FunctionDef } from '../../runtime/functions/types';
import { runCli } from '../helpers/cli';
import { tempDir } from '../helpers/temp';

const LIMITS = { timeout: 60_000 };

/** Runs the examples as one script through the CLI binary; returns what each printed. */
async function printed(examples: FunctionDef[]): Promise<string[]> {
  // One PRINT per example, framed by markers so each output is found even when it holds blanks or is empty.
  const script = examples.map((d, i) => `PRINT '<${i}>${d.example.replaceAll("'", "''")}</${i}>';\n`).join('');
  const dir = tempDir('issue5-examples');
  writeFileSync(join(dir, 'examples.sql'), script);
  const r = await runCli(dir, ['run', 'examples.sql', '--workspace', 'ws']);
  assert.equal(r.code, 0, r.stderr);
  return examples.map((_, i) => new RegExp(`<${i}>([\\s\\S]*?)</${i}>`).exec(r.stderr)?.[1] ?? '(nothing printed)');
}

/**
 * Issue 5: "every function of 4.4 works as documented from the REPL, `sqlcdc run` and the kernel". The
 * registry's examples are docs/functions.md's; here each deterministic one runs through the CLI binary,
 * as a user pastes it into PRINT, and must print its documented output.
 */
test('every documented function example prints its documented output under sqlcdc run', LIMITS, async () => {
  const examples = allFunctions().filter((d) => d.expected !== undefined && d.family !== 'operator');
  assert.ok(examples.length > 80, `${examples.length} deterministic examples`);
  // A run keeps one high watermark, the largest of its calc_hwm proposals: each of those examples runs alone.
  const [alone, together] = [
    examples.filter((d) => d.names[0].startsWith('data.calc_hwm')),
    examples.filter((d) => !d.names[0].startsWith('data.calc_hwm')),
  ];
  assert.equal(alone.length, 3);
  const outputs = [...(await Promise.all(alone.map((d) => printed([d])))).flat(), ...(await printed(together))];
  [...alone, ...together].forEach((d, i) => assert.equal(outputs[i], d.expected, `${d.names[0]}: ${d.example}`));
});
