/** Reading one document out of a packed `DocTable` (written by doc-table.ts). */
import type { DocTable } from '../contracts.ts';

/** Id of document i of a table. */
export const tableId = (t: DocTable, i: number): string => t.ids.slice(i > 0 ? t.idEnds[i - 1] : 0, t.idEnds[i]);

/** Meta of document i of a table (a fresh object). */
export function tableMeta(t: DocTable, i: number): Record<string, unknown> {
  const m = t.metaOf[i];
  return JSON.parse(t.metas.slice(m > 0 ? t.metaEnds[m - 1] : 0, t.metaEnds[m])) as Record<string, unknown>;
}
