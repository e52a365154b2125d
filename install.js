#!/usr/bin/env node
'use strict';
/*
 * Registers the "SQL CDC" Jupyter kernel (kernelspec `sqlcdc`), or removes it with --uninstall.
 *
 *   node install.js                  for the current user ($JUPYTER_DATA_DIR, else Jupyter's user data dir)
 *   node install.js --prefix DIR     into DIR/share/jupyter/kernels/sqlcdc (use JUPYTER_PATH=DIR/share/jupyter)
 *   node install.js --sys-prefix     into the prefix of the Python that runs `jupyter`
 *   node install.js --uninstall [--prefix DIR | --sys-prefix]
 *
 * Plain JavaScript so that it runs from `npm install` before anything is compiled. Run by npm, a
 * failure only warns: an odd environment (read-only home, no Jupyter) must not fail the install.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const NAME = 'sqlcdc';
const ROOT = __dirname;
const USAGE = 'usage: node install.js [--user | --prefix DIR | --sys-prefix] [--uninstall]';

function parseArgs(argv) {
  const opts = { where: 'user', prefix: undefined, uninstall: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--uninstall') opts.uninstall = true;
    else if (a === '--user') opts.where = 'user';
    else if (a === '--sys-prefix') opts.where = 'sys-prefix';
    else if (a === '--prefix' || a.startsWith('--prefix=')) {
      opts.where = 'prefix';
      opts.prefix = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!opts.prefix) throw new Error(`--prefix needs a folder; ${USAGE}`);
    } else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${a}; ${USAGE}`);
  }
  return opts;
}

/** Jupyter's per-user data dir, as jupyter_core computes it. */
function userDataDir() {
  if (process.env.JUPYTER_DATA_DIR) return process.env.JUPYTER_DATA_DIR;
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Jupyter');
  if (process.platform === 'win32')
    return path.join(process.env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'jupyter');
  return path.join(process.env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'jupyter');
}

/** sys.prefix of the Python running `jupyter` (read from its script's #! line), else of python3. */
function sysPrefix() {
  let python = 'python3';
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const script = path.join(dir, 'jupyter');
    if (!fs.existsSync(script)) continue;
    const first = fs.readFileSync(script, 'utf8').split('\n', 1)[0];
    if (first.startsWith('#!')) python = first.slice(2).trim().split(/\s+/)[0];
    break;
  }
  return execFileSync(python, ['-c', 'import sys; print(sys.prefix)'], { encoding: 'utf8' }).trim();
}

function kernelDir(opts) {
  const data =
    opts.where === 'prefix'
      ? path.join(path.resolve(opts.prefix), 'share', 'jupyter')
      : opts.where === 'sys-prefix'
        ? path.join(sysPrefix(), 'share', 'jupyter')
        : userDataDir();
  return path.join(data, 'kernels', NAME);
}

function kernelSpec() {
  return {
    // Absolute paths: clients start the kernel from any folder (nbconvert: the notebook's).
    argv: [process.execPath, path.join(ROOT, 'dist', 'kernel', 'main.js'), '{connection_file}'],
    display_name: 'SQL CDC',
    language: 'sql',
    interrupt_mode: 'message',
    metadata: { debugger: false },
  };
}

function install(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'kernel.json'), JSON.stringify(kernelSpec(), null, 2) + '\n');
  for (const logo of ['logo-32x32.png', 'logo-64x64.png']) {
    fs.copyFileSync(path.join(ROOT, 'kernel', 'assets', logo), path.join(dir, logo));
  }
  console.log(`Installed the SQL CDC Jupyter kernel (sqlcdc) in ${dir}`);
  if (!fs.existsSync(kernelSpec().argv[1]))
    console.log('Note: build it with `npm run build` before starting the kernel.');
}

function uninstall(dir) {
  if (!fs.existsSync(dir)) {
    console.log(`No SQL CDC kernel in ${dir}`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`Removed the SQL CDC Jupyter kernel from ${dir}`);
}

function main() {
  const fromNpm = ['install', 'postinstall', 'prepare'].includes(process.env.npm_lifecycle_event);
  try {
    const opts = parseArgs(process.argv.slice(2));
    const dir = kernelDir(opts);
    if (opts.uninstall) uninstall(dir);
    else install(dir);
  } catch (e) {
    const reason = e && e.message ? e.message : String(e);
    if (!fromNpm) {
      console.error(`install.js: ${reason}`);
      process.exit(1);
    }
    console.warn(
      `sqlcdc: the Jupyter kernel was not registered (${reason}). Run \`node install.js\` later to register it.`,
    );
  }
}

main();
