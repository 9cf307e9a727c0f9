/**
 * `node --import tsx scripts/lib-size.ts [--max-kb 60]`: the gzipped size of the package's own
 * JavaScript in `lib/` — every `.js` file except the third-party model runtime chunk
 * (transformers.js + onnxruntime-web, vite.lib.config.ts `ML_RUNTIME_CHUNK`) and the language
 * detector's (eld and its n-gram data, `LANGUAGE_DETECTOR_CHUNK`), which are printed apart. Models and the ONNX wasm are never in the package. Exits 1 over the budget.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseArgs } from './lib/args.ts';

/** The library's budget (issue 14). */
export const LIB_BUDGET_KB = 60;
const THIRD_PARTY_PREFIXES = ['chunks/ml-runtime-', 'chunks/language-detector-'];

const gz = (file: string): number => gzipSync(readFileSync(file), { level: 9 }).length;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints per-file and total gzipped sizes; returns the library's own total in bytes. */
export function printLibSize(lib: string): number {
  let own = 0, runtime = 0;
  const rows: string[] = [];
  for (const entry of readdirSync(lib, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = join(entry.parentPath, entry.name);
    const name = relative(lib, file);
    const size = gz(file);
    const isRuntime = THIRD_PARTY_PREFIXES.some((p) => name.startsWith(p));
    if (isRuntime) runtime += size;
    else own += size;
    rows.push(`  ${name.padEnd(40)} ${kb(size).padStart(10)}${isRuntime ? '  (third-party runtime or data, not counted)' : ''}`);
  }
  console.log(`rcp-in-page package, gzipped:\n${rows.sort().join('\n')}`);
  console.log(`library's own JavaScript: ${kb(own)} (budget ${LIB_BUDGET_KB} KB); transformers.js + onnxruntime-web + eld: ${kb(runtime)}`);
  return own;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs(process.argv.slice(2));
  const max = Number(values.get('max-kb') ?? LIB_BUDGET_KB);
  const own = printLibSize(resolve(import.meta.dirname, '..', 'lib'));
  if (own > max * 1024) {
    console.error(`over budget: ${kb(own)} > ${max} KB`);
    process.exit(1);
  }
}
