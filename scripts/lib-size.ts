/**
 * `node --import tsx scripts/lib-size.ts [--max-kb 60]`: the gzipped size of the package's own
 * JavaScript in `lib/` — every `.js` file except the third-party model runtime chunk
 * (transformers.js + onnxruntime-web, vite.lib.config.ts `ML_RUNTIME_CHUNK`) and the language
 * detector's (eld and its n-gram data, `LANGUAGE_DETECTOR_CHUNK`), which are printed apart. Models and the ONNX wasm are never in the package. Exits 1 over the budget.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cliArgs } from '../tools/lib/args.ts';

/** The library's budget (issue 14). */
export const LIB_BUDGET_KB = 60;
/** `<rcp-search>` beyond the engine (issue 22): its own entry, apart from the library's total. */
export const ELEMENT_BUDGET_KB = 20;
const ELEMENT_FILE = 'search.js';
const ML_RUNTIME_PREFIX = 'chunks/ml-runtime-';
/** Code the worker imports only to serve a bundle built ahead (src/bundle): not in a worker serving its own index. */
const BUNDLE_READER_PREFIX = 'chunks/bundle-store-';
/** Language detection data (eld), loaded with the first document to add: third-party data. */
const LANGUAGE_DATA_PREFIX = 'chunks/language-detector-';

const gz = (file: string): number => gzipSync(readFileSync(file), { level: 9 }).length;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints per-file and total gzipped sizes; returns the library's own total in bytes. */
export function printLibSize(lib: string): number {
  let own = 0, runtime = 0, element = 0, reader = 0;
  const rows: string[] = [];
  for (const entry of readdirSync(lib, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = join(entry.parentPath, entry.name);
    const name = relative(lib, file);
    // The Node CLI (lib/cli/) is never served to a page.
    if (name.startsWith('cli/')) continue;
    const size = gz(file);
    const apart = name.startsWith(ML_RUNTIME_PREFIX) ? 'model runtime' : name.startsWith(LANGUAGE_DATA_PREFIX) ? 'language detector (eld)' : name === ELEMENT_FILE ? '<rcp-search>' : name.startsWith(BUNDLE_READER_PREFIX) ? 'bundle reader, loaded to serve a bundle' : undefined;
    if (name.startsWith(ML_RUNTIME_PREFIX) || name.startsWith(LANGUAGE_DATA_PREFIX)) runtime += size;
    else if (name === ELEMENT_FILE) element += size;
    else if (name.startsWith(BUNDLE_READER_PREFIX)) reader += size;
    else own += size;
    rows.push(`  ${name.padEnd(40)} ${kb(size).padStart(10)}${apart ? `  (${apart}, not counted)` : ''}`);
  }
  console.log(`rcp-in-page package, gzipped:\n${rows.sort().join('\n')}`);
  console.log(`library's own JavaScript: ${kb(own)} (budget ${LIB_BUDGET_KB} KB); transformers.js + onnxruntime-web + eld: ${kb(runtime)}`);
  console.log(`<rcp-search> beyond the engine: ${kb(element)} (budget ${ELEMENT_BUDGET_KB} KB); the bundle reader: ${kb(reader)}`);
  lastElementBytes = element;
  return own;
}

/** The element's size from the last `printLibSize`. */
let lastElementBytes = 0;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = cliArgs({ usage: 'node --import tsx scripts/lib-size.ts [--max-kb 60]', options: { 'max-kb': { type: 'string' } } });
  const max = Number(values['max-kb'] ?? LIB_BUDGET_KB);
  const own = printLibSize(resolve(import.meta.dirname, '..', 'lib'));
  if (own > max * 1024) {
    console.error(`over budget: ${kb(own)} > ${max} KB`);
    process.exit(1);
  }
  if (lastElementBytes > ELEMENT_BUDGET_KB * 1024) {
    console.error(`<rcp-search> over budget: ${kb(lastElementBytes)} > ${ELEMENT_BUDGET_KB} KB`);
    process.exit(1);
  }
}
