/**
 * `npm run bench -- <name> …`: runs bench/<name>.ts; `npm run bench` alone runs them all. To add a benchmark, write the module (exporting an
 * async run function) and add one line below.
 */
const BENCHES: Record<string, () => Promise<void>> = {
  load: async () => (await import('./load')).runLoadBench(),
  functions: async () => (await import('./functions')).runFunctionsBench(),
  transform: async () => (await import('./transform')).runTransformBench(),
  kernel: async () => (await import('./kernel')).runKernelBench(),
  schema: async () => (await import('./schema')).runSchemaBench(),
  describe: async () => (await import('./describe')).runDescribeBench(),
  writers: async () => (await import('./writers')).runWritersBench(),
  cdc: async () => (await import('./cdc')).runCdcBench(),
  changelog: async () => (await import('./changelog')).runChangeLogBench(),
  parquet: async () => (await import('./parquet')).runParquetBench(),
  db: async () => (await import('./db')).runDbBench(),
  webhook: async () => (await import('./webhook')).runWebhookBench(),
  push: async () => (await import('./push')).runPushBench(),
  scale: async () => (await import('./scale')).runScaleBench(),
  cli: async () => (await import('./cli')).runCliBench(),
  xml: async () => (await import('./xml')).runXmlBench(),
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const names = args.length ? args : Object.keys(BENCHES);
  if (names.some((n) => !BENCHES[n])) {
    const unknown = names.filter((n) => !BENCHES[n]);
    if (unknown.length) console.error(`unknown benchmark: ${unknown.join(', ')}`);
    console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> …`);
    process.exitCode = 2;
    return;
  }
  for (const name of names) await BENCHES[name]();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
