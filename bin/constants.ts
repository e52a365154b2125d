/** What `sqlcdc run --output` accepts. */
export const OUTPUT_FORMATS = ['table', 'json', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Exit codes of the CLI (docs/cli.md). */
export const EXIT = { ok: 0, scriptError: 1, usage: 2, internal: 70, interrupted: 130 } as const;
