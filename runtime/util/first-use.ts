/**
 * `fn` whose module loads with its first call (`load` wraps an `import()`): the module, and all it pulls,
 * stays out of the start-up of the CLI, the REPL and the kernel until a script uses it.
 */
export const onFirstUse =
  <A extends unknown[], R>(load: () => Promise<(...args: A) => R | Promise<R>>): ((...args: A) => Promise<R>) =>
  async (...args) =>
    (await load())(...args);
