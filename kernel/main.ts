import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeWorkspace, sessionFolders } from '../runtime/startup';
import { Kernel } from './kernel';
import { log } from './log';

const USAGE = 'usage: node dist/kernel/main.js <connection file> [--workspace DIR]';

/** The connection file and the workspace option; undefined when the arguments make no sense. */
function parseArguments(argv: string[]): { file: string; workspace?: string } | undefined {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { workspace: { type: 'string' } },
    });
    if (positionals.length !== 1 || values.workspace === '') return undefined;
    return { file: positionals[0], workspace: values.workspace };
  } catch {
    return undefined;
  }
}

/**
 * Entry point named by the kernelspec: `node dist/kernel/main.js <connection file>`. The working
 * directory is wherever the client started us (nbconvert: the notebook's folder); relative paths in
 * cells resolve against it, and the workspace is found from it unless `--workspace` (an argument
 * added to the kernelspec's argv) or $SQLCDC_HOME names one.
 */
async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  if (!args) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  // The terminal that started us may go away (a console killed with its window): writing to its
  // closed pipe fails asynchronously, and logging that failure would fail again, for ever.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  // A defect in a listener or timer must not take the user's session down with it.
  process.on('uncaughtException', (e) => log(`uncaught: ${e.stack ?? e}`));
  process.on('unhandledRejection', (e) => log(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`));

  const folders = sessionFolders({ workspace: args.workspace });
  // Which workspace a notebook uses depends on where the client started the kernel: say it.
  log(`workspace ${describeWorkspace(folders)}`);
  const kernel = await Kernel.start(resolve(args.file), folders);
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
      log(`parent process ${pid} is gone; exiting`);
      clearInterval(timer);
      void kernel.stop();
    }
  }, 2000);
  timer.unref();
}

main().catch((e) => {
  log(`cannot start: ${(e as Error).message}`);
  process.exit(1);
});
