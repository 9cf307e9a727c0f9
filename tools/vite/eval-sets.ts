/**
 * Vite plugin: copies the English development collections (`../shared/eval/{cacm,npl,time}`, BEIR
 * format, beside the repository) into public/eval/ (gitignored), so the playground's quality
 * harness offers them as one-click examples. `__RCP_EVAL_SETS__` lists what was copied; a clone
 * without ../shared gets none and the harness takes only files the user picks.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';

export const EVAL_EXAMPLES = ['cacm', 'npl', 'time'] as const;
const FILES = ['corpus.jsonl', 'queries.jsonl', join('qrels', 'test.tsv')];

/** Copies each collection that is complete; returns their names. */
export function copyEvalSets(root: string, publicDir: string): string[] {
  const from = process.env.RCP_EVAL_DIR ?? join(root, '..', 'shared', 'eval');
  const out: string[] = [];
  for (const name of EVAL_EXAMPLES) {
    if (!FILES.every((f) => existsSync(join(from, name, f)))) continue;
    mkdirSync(join(publicDir, 'eval', name, 'qrels'), { recursive: true });
    for (const f of FILES) copyFileSync(join(from, name, f), join(publicDir, 'eval', name, f));
    out.push(name);
  }
  return out;
}

export function evalSets(opts: { root: string; publicDir: string }): Plugin {
  return { name: 'rcp-eval-sets', config: () => ({ define: { __RCP_EVAL_SETS__: JSON.stringify(copyEvalSets(opts.root, opts.publicDir)) } }) };
}
