import { readFileSync, readlinkSync } from 'node:fs';

/** Whether a process with this id exists; EPERM means one of another user has it, so it is alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This boot of the machine (/proc/sys/kernel/random/boot_id, 12 hex digits), or '' where /proc is
 * missing: a process id of an earlier boot names no process of this one.
 */
export function bootId(): string {
  return (boot ??= readOr('', () =>
    readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')
      .replace(/[^0-9a-f]/g, '')
      .slice(0, 12),
  ));
}

/**
 * The PID namespace this process sees process ids in (the inode of /proc/self/ns/pid), or '': a
 * process id written by a process in another one (another container on the same workspace) names
 * another process here, or none.
 */
export function pidNamespace(): string {
  return (namespace ??= readOr('', () => /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? ''));
}

/** The process's start time in clock ticks after boot (/proc/PID/stat, field 22); throws where unknown. */
export function startTicks(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

/** When this boot of the machine began (/proc/stat's btime, epoch ms), or 0 where /proc is missing. */
export function bootTime(): number {
  return (bootedAt ??=
    Number(readOr('0', () => /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? '0')) * 1000);
}

/**
 * How long a file of a process of another PID namespace (another container on the workspace), which
 * cannot be looked up here, counts as its live process's after it was last touched: docs/session.md.
 */
export const STALE_MS = 10 * 60_000;
/** How often a process holding such a file for long (a CAPTURE's lock, a listener's journal) touches it. */
export const HEARTBEAT_MS = 30_000;

/** `<boot>.<pid namespace>.<pid>.<start ticks>`: what `identityAlive` judges a process by. */
export function processIdentity(): string {
  return (identity ??= `${bootId()}.${pidNamespace()}.${process.pid}.${readOr('', () => startTicks(process.pid))}`);
}

/**
 * Whether the process `processIdentity` returned `id` in lives. Of another PID namespace (another
 * container) or another boot id (another machine on a shared workspace, or this one before it
 * restarted), it cannot be looked up here: alive while its file was touched (`touched`, epoch ms)
 * within STALE_MS and since this boot began, so what a process left before a restart is dead at
 * once. Else alive while a process with its id started at its start time (an id used again by a
 * later process is not it). A bare process id (an older sqlcdc's, or no /proc) by the id alone.
 */
export function identityAlive(id: string, touched: () => number | undefined): boolean {
  const parts = id.split('.');
  if (parts.length === 1) return Number(id) > 0 && processAlive(Number(id));
  const [itsBoot, itsNamespace, pidText, ticks] = parts;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (itsBoot !== bootId() || itsNamespace !== pidNamespace()) {
    const at = touched();
    return at !== undefined && at >= bootTime() && Date.now() - at < STALE_MS;
  }
  if (!ticks) return processAlive(pid);
  return readOr('', () => startTicks(pid)) === ticks;
}

let boot: string | undefined;
let bootedAt: number | undefined;
let identity: string | undefined;
let namespace: string | undefined;

function readOr(otherwise: string, read: () => string): string {
  try {
    return read();
  } catch {
    return otherwise;
  }
}
