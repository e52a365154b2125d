import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Backend } from '../../kernel/backend';
import { History } from '../../kernel/history';
import { tempDir } from '../helpers/temp';

const dir = tempDir('kernel-line-ends');
const backend = new Backend(() => {}, new History(join(dir, 'history.jsonl')), join(dir, 'kernel.json'), {
  workspace: join(dir, 'ws'),
  cwd: dir,
  origin: 'named',
});
after(() => backend.close());

/** The complete_reply to a complete_request with the cursor at the end of `code`, its range counted back from the end. */
function complete(code: string) {
  const length = [...code].length;
  const { matches, cursor_start, cursor_end } = backend.complete({ code, cursor_pos: length });
  return { first: matches[0], start: length - cursor_start, end: length - cursor_end };
}

test('complete_request: a cell with CRLF or CR line ends completes as with LF (magic lines, after a comment)', () => {
  for (const lines of [
    ['%limit 5', '%con'],
    ['%limit 5', '%connection a'],
    ['-- the orders', 'SEL'],
    ["SELECT * FROM DRIVE 'a.csv'; -- read them", 'SI'],
  ]) {
    const lf = complete(lines.join('\n'));
    assert.ok(lf.first, `${lines.join(' ⏎ ')} completes with LF`);
    for (const nl of ['\r\n', '\r'])
      assert.deepEqual(complete(lines.join(nl)), lf, `${JSON.stringify(nl)}: ${lines.join(' ⏎ ')}`);
  }
});
