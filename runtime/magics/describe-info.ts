import type { MagicInfo } from './magic';

export const describeMagic: MagicInfo = {
  name: 'describe',
  usage: '%describe [column …]',
  description: 'profiles the pipeline dataset: type, nulls, distinct values, min, max and top values of each column',
};
