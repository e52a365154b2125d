/** Where a process speaking the protocol reports trouble on the wire (a dropped message, a failed send). */
export type Log = (text: string) => void;

/** A log on stderr, each line under the process's name: Jupyter front ends show a kernel's stderr in their log or terminal. */
export function stderrLog(name: string): Log {
  return (text) => {
    process.stderr.write(`[${name}] ${text}\n`);
  };
}
