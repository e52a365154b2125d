import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROTOCOL_VERSION } from '../jupyter/wire';

/** The repository root, from dist/kernel/ (compiled) — the kernel never relies on the working directory. */
const ROOT = join(__dirname, '..', '..');

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

const VERSION = packageVersion();

/** kernel_info_reply content: everything real clients read (nbconvert, JupyterLab, jupyter console). */
export function kernelInfo() {
  const docs = (file: string) => pathToFileURL(join(ROOT, 'docs', file)).href;
  return {
    status: 'ok',
    protocol_version: PROTOCOL_VERSION,
    implementation: 'sqlcdc',
    implementation_version: VERSION,
    language_info: {
      name: 'sql',
      version: VERSION,
      mimetype: 'text/x-sql',
      file_extension: '.sql',
      pygments_lexer: 'sql',
      codemirror_mode: 'sql',
      nbconvert_exporter: 'script',
    },
    banner: `SQL CDC ${VERSION}: one statement or more per cell, ending with ';'. %help lists the magics.`,
    help_links: [
      { text: 'SQL CDC in Jupyter', url: docs('jupyter.md') },
      { text: 'SQL CDC language', url: docs('language.md') },
      { text: 'SQL CDC functions', url: docs('functions.md') },
    ],
    debugger: false,
  };
}
