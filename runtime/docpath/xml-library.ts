import type { Node } from '@xmldom/xmldom';

/**
 * saxes, @xmldom/xmldom and xpath (~90 ms of modules at every start of the CLI, the REPL and the
 * kernel) load with the first XML document or XPath, not with the interpreter. Every value use goes
 * through here; type imports may name the packages directly.
 */
type Saxes = typeof import('saxes');
type XmlDom = typeof import('@xmldom/xmldom');
type XPath = typeof import('xpath');

let saxes: Saxes | undefined;
let dom: XmlDom | undefined;
let xp: XPath | undefined;

export function saxesLibrary(): Saxes {
  return (saxes ??= require('saxes') as Saxes);
}

export function xmlDom(): XmlDom {
  return (dom ??= require('@xmldom/xmldom') as XmlDom);
}

export function xpathLibrary(): XPath {
  return (xp ??= require('xpath') as XPath);
}

/** The compiled-expression API the xpath package has at run time but leaves out of its typings. */
export interface CompiledXPath {
  select(options: { node: Node }): unknown;
  evaluateBoolean(options: { node: Node }): boolean;
}

/** Compiles an XPath once, for evaluation per row; throws the package's own error when it is invalid. */
export function parseXPath(expression: string): CompiledXPath {
  return (xpathLibrary() as unknown as { parse: (expression: string) => CompiledXPath }).parse(expression);
}
