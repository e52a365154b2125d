/**
 * How deep the nested forms of the language may go: APPLY PIPELINE inside APPLY PIPELINE, `#f(#g(…))`
 * in texts, and parentheses, function calls, IN lists, NOT and signs in expressions. Parsing, binding
 * and running recurse once per level (a pipeline runs inside its parent's call), so the depth must stay
 * well inside Node's default stack. Measured on Node 20: one form alone overflows near 800 (expression
 * parentheses) to 1,100 levels (pipelines, calls), all three at once between 320 and 350; 128 keeps
 * the worst case at under half of the stack (test/session/nesting.test.ts runs it). Chains of operators
 * (a OR b OR …, a + b + …) are not nesting: they are parsed and evaluated with loops, at any length.
 * docs/language.md names this limit.
 */
export const NESTING_LIMIT = 128;

export const NESTED_TOO_DEEPLY = `nested too deeply (limit ${NESTING_LIMIT})`;
