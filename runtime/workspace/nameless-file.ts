import { closeSync, constants, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { arch, platform } from 'node:process';
import type * as Koffi from 'koffi';
import { tempPathOf } from './files';

/**
 * A file made without a name and named once whole: Linux's `O_TMPFILE` and `linkat`. A listener
 * publishing a file per call otherwise creates it under a temp name, links it under its own and
 * removes the temp name: two more changes of a folder per file, a sixth of a call's file work here
 * (docs/webhook.md). A nameless file a crash leaves behind is no litter either: it goes with its
 * last descriptor. Node has `O_TMPFILE` as an open flag but no `linkat`, so it is called through
 * koffi (a foreign function interface shipped built); where either is missing, `namelessFilesIn`
 * answers undefined and the caller keeps to temp names.
 */
export interface NamelessFiles {
  /** A descriptor of a new file without a name, writable, on the file system of `folder`. */
  open(folder: string, mode?: number): number;
  /** Gives the open file `path` as its name; EEXIST rather than replace a file already there. */
  name(fd: number, path: string): void;
}

/** `__O_TMPFILE` on the architectures where Linux takes its generic value. */
const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY;
const AT_FDCWD = -100;
const AT_SYMLINK_FOLLOW = 0x400;
const AT_EMPTY_PATH = 0x1000;
const GENERIC_FLAGS = new Set(['x64', 'arm64', 'arm', 'ia32', 'riscv64', 'loong64']);

type LinkAt = (oldFolder: number, oldPath: string, newFolder: number, newPath: string, flags: number) => number;

/**
 * The calls, tried once in `folder` (a file made, named and removed; the folder made first with
 * `make`), or undefined where this system, this install or that file system lacks them, or the
 * folder cannot be written.
 */
export function namelessFilesIn(folder: string, { make = false } = {}): NamelessFiles | undefined {
  if (platform !== 'linux' || !GENERIC_FLAGS.has(arch)) return undefined;
  try {
    if (make) mkdirSync(folder, { recursive: true });
  } catch {
    return undefined;
  }
  let koffi: typeof Koffi;
  let linkat: LinkAt;
  try {
    koffi = require('koffi') as typeof Koffi;
    linkat = koffi
      .load('libc.so.6')
      .func('int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)') as LinkAt;
  } catch {
    return undefined;
  }
  const codes = new Map(Object.entries(koffi.os.errno).map(([code, n]) => [n, code]));
  const failure = (path: string): NodeJS.ErrnoException => {
    const errno = koffi.errno();
    const code = codes.get(errno) ?? 'EIO';
    return Object.assign(new Error(`${code}: linkat '${path}'`), { errno: -errno, code, syscall: 'linkat', path });
  };
  const open = (at: string, mode?: number) => openSync(at, O_TMPFILE | constants.O_WRONLY, mode ?? 0o666);
  // A descriptor is named by itself (before Linux 6.10 only with the capability
  // CAP_DAC_READ_SEARCH), else through /proc.
  const byItself = (fd: number, path: string) => linkat(fd, '', AT_FDCWD, path, AT_EMPTY_PATH);
  const byProc = (fd: number, path: string) =>
    linkat(AT_FDCWD, `/proc/self/fd/${fd}`, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
  // A temp name: should a crash leave the probe behind, it is dropped with the temp files.
  const probe = tempPathOf(join(folder, 'nameless-probe'), folder);
  for (const link of [byItself, byProc]) {
    let fd: number;
    try {
      fd = open(folder);
    } catch {
      return undefined;
    }
    try {
      if (link(fd, probe) !== 0) continue;
      unlinkSync(probe);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
    return {
      open,
      name(fd, path) {
        if (link(fd, path) !== 0) throw failure(path);
      },
    };
  }
  return undefined;
}
