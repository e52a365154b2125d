/**
 * `fn` whose module loads with its first call (`load` wraps an `import()`): the module, and all it pulls,
 * stays out of the start-up of the CLI, the REPL and the kernel until a script uses it. The function
 * loaded is kept: asking `load` again at every call (a statement of every webhook call's Run) went
 * through `require`'s lookup and two promises each time, ~2 µs a statement in a listener under load.
 * A load that fails is tried again at the next call.
 */
export const onFirstUse = <A extends unknown[], R>(
  load: () => Promise<(...args: A) => R | Promise<R>>,
): ((...args: A) => Promise<R>) => {
  let loaded: ((...args: A) => R | Promise<R>) | undefined;
  return async (...args) => (loaded ??= await load())(...args);
};
