import type { FunctionDef } from './types';
export const dataFunctions: FunctionDef[] = [];
