import type { FunctionDef } from './types';
export const otherFunctions: FunctionDef[] = [];
