import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * Forbids import cycles between the project's modules, type-only imports included. import-x/no-cycle
 * always skips `import type`, but a loop of type imports still ties its modules together: none of them
 * can be understood, moved or split without the others. Every kind of import counts: `import`,
 * `import type`, `export … from`, `import()`, `typeof import()` and `require()`.
 */

/** A module's resolved local imports, by file, kept while the file is unchanged. */
const graph = new Map();

function specifiers(text) {
  return ts.preProcessFile(text, true, true).importedFiles;
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The project file a relative specifier names (TypeScript's resolution for `./x`); packages are not followed. */
function resolveLocal(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, `${base}/index.ts`, base].find(isFile);
}

function importsOf(file) {
  const { mtimeMs } = statSync(file);
  const known = graph.get(file);
  if (known?.mtimeMs === mtimeMs) return known.imports;
  const imports = specifiers(readFileSync(file, 'utf8'))
    .map((s) => resolveLocal(file, s.fileName))
    .filter((path) => path !== undefined && path !== file);
  graph.set(file, { mtimeMs, imports });
  return imports;
}

/** The shortest import chain from `start` that imports `target`, or undefined when there is none. */
function chainBack(start, target) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const next of importsOf(queue[i])) {
      if (next === target) {
        const chain = [];
        for (let f = queue[i]; f !== undefined; f = previous.get(f)) chain.unshift(f);
        return chain;
      }
      if (!previous.has(next)) {
        previous.set(next, queue[i]);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included' },
    messages: { cycle: 'import cycle: {{chain}}' },
    schema: [],
  },
  create(context) {
    const file = context.physicalFilename;
    const { sourceCode } = context;
    const name = (path) => relative(context.cwd, path);
    return {
      Program() {
        for (const s of specifiers(sourceCode.text)) {
          const target = resolveLocal(file, s.fileName);
          if (target === undefined || target === file) continue;
          const chain = chainBack(target, file);
          if (!chain) continue;
          context.report({
            loc: { start: sourceCode.getLocFromIndex(s.pos), end: sourceCode.getLocFromIndex(s.end) },
            messageId: 'cycle',
            data: { chain: [file, ...chain, file].map(name).join(' → ') },
          });
        }
      },
    };
  },
};
