import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Session } from '../../runtime/session';

/** A new empty folder in the system's temp folder, named after the test `area` for whoever looks there. */
export function tempDir(area: string): string {
  return mkdtempSync(join(tmpdir(), `sqlcdc-${area}-`));
}

/**
 * A session whose working directory is a new temp folder holding `files` (relative path → content,
 * folders made as needed), with its workspace in the `ws` folder there.
 */
export function tempSession(
  files: Record<string, string | Buffer> = {},
  area = 'session',
): { session: Session; dir: string } {
  const dir = tempDir(area);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { session: new Session({ workspace: join(dir, 'ws'), cwd: dir }), dir };
}
