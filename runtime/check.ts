// The statement parser alone, for the CLI's commands that check a script without running it (`job
// create|update --reader/--writer`, which scripts and the test suite call by the hundred): the parser
// is about a fifth of what the interpreter loads. Nothing here may import the session, the commands'
// modules (beyond the whole-script rules of commands/checks.ts), the magics or the function library
// (test/cli/startup.test.ts checks what `job create` loads); runtime/index.ts exports the same.
export { checkJobScript } from './jobs/script-check';
