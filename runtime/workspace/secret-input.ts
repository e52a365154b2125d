import { maskIssuedSecrets, redactScriptLine, redactUrlsIn } from './redact';

/**
 * Magic lines whose arguments are secrets (session.md, "Secrets"): a password, token, key or header
 * value (`--basic`, `--bearer`, `--apikey`, `--header`, or a URL's `user:password@`, a secret-named
 * query parameter such as `?token=`) given to any magic, `%connection` or a misspelling of it
 * (`%conection add … --bearer …` fails, but was typed all the same), `%var set --encrypted`, and
 * `%job` with `--signing-secret whsec_…` (update's value, or one given by mistake to create's switch).
 */
const SECRET_MAGIC = [
  /^\s*%%?\S*.*(--(basic|bearer|apikey|header)\b|\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]*@)/i,
  /^\s*%var\s+set\b.*\s--encrypted\b/i,
  /^\s*%%?job\b.*\s--signing-secret(\s+|=)whsec_/i,
];

/**
 * Every option a magic takes, by name (the union of the magics' option tables; test/session/secrets
 * checks it against them). Written out here because the kernel judges its history before the magics'
 * code is loaded.
 */
export const MAGIC_OPTION_NAMES: ReadonlySet<string> = new Set(
  (
    'apikey basic bearer ca check-signature drive encrypted header insecure job max-answer no-auth ' +
    'no-save-sample no-signing-secret no-webhook on port postgres reader run save-sample signing-secret ' +
    'sqlite timeout webhook writer'
  ).split(' '),
);

const OPTION_WORD = /(?:^|\s)--([A-Za-z][\w-]*)/g;

/**
 * A magic line with an option no magic takes: a misspelt `--bearer` or `--encrypted` (`%var set
 * --encypted k VALUE`) fails, but its value may be the secret it was meant to seal.
 */
function unknownMagicOption(line: string): boolean {
  if (!/^\s*%/.test(line)) return false;
  for (const m of line.matchAll(OPTION_WORD)) if (!MAGIC_OPTION_NAMES.has(m[1])) return true;
  return false;
}

/**
 * Whether typed input (a REPL line, a notebook cell) carries a secret — those magics, or any line
 * holding a URL with a password or a secret-named query value, or a CREDENTIALS value (whose quote may
 * open on the next line, hence the whole input) — so that the histories kept in the workspace leave it
 * out: a secret is kept sealed or not at all, never in clear on disk.
 */
export function holdsSecret(input: string): boolean {
  return (
    input
      .split('\n')
      .some(
        (line) =>
          SECRET_MAGIC.some((re) => re.test(line)) || unknownMagicOption(line) || redactScriptLine(line) !== line,
      ) || redactUrlsIn(input) !== input
  );
}

/**
 * `value` (a protocol message's content) with every string that `holdsSecret` judges carrying a
 * secret replaced by a note of its length, and the secrets sqlcdc issues masked in the others (the
 * output of `%job … --signing-secret`, `%webhook start`): what a debug log (SQLCDC_KERNEL_TRACE) may
 * print of a cell, an echoed execute_input, an output or a history entry.
 */
export function withoutSecrets(value: unknown): unknown {
  if (typeof value === 'string')
    return holdsSecret(value) ? `(${value.length} characters holding a secret)` : maskIssuedSecrets(value);
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v)]));
  return value;
}
