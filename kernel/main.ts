import { resolve } from 'node:path';
import { logError } from '../jupyter/log';
import { Kernel } from './kernel';

/**
 * Entry point named by the kernelspec: `node dist/kernel/main.js <connection file>`. The working
 * directory is wherever the client started us (nbconvert: the notebook's folder); relative paths in
 * cells resolve against it, nothing of the kernel itself does.
 */
async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node dist/kernel/main.js <connection file>\n');
    process.exit(2);
  }
  // The terminal that started us may go away (a console killed with its window): writing to its
  // closed pipe fails asynchronously, and logging that failure would fail again, for ever.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  // A defect in a listener or timer must not take the user's session down with it.
  process.on('uncaughtException', (e) => logError(`uncaught: ${e.stack ?? e}`));
  process.on('unhandledRejection', (e) => logError(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`));

  const kernel = await Kernel.start(resolve(file));
  // jupyter_client signals the process group when it interrupts by signal (or the user presses Ctrl-C).
  process.on('SIGINT', () => kernel.interrupt());
  stopWithParent(kernel);
  await kernel.stopped;
  process.exit(0);
}

/** jupyter_client names the process that started us; a kernel outliving its client would be orphaned forever. */
function stopWithParent(kernel: Kernel): void {
  const pid = Number(process.env.JPY_PARENT_PID);
  if (!Number.isInteger(pid) || pid <= 1) return;
  const timer = setInterval(() => {
    try {
      process.kill(pid, 0);
    } catch {
      logError(`parent process ${pid} is gone; exiting`);
      clearInterval(timer);
      void kernel.stop();
    }
  }, 2000);
  timer.unref();
}

main().catch((e) => {
  logError(`cannot start: ${(e as Error).message}`);
  process.exit(1);
});
