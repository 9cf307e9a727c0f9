/**
 * `npm run build:lib`: the npm package's files in `lib/` (see vite.lib.config.ts): the JavaScript
 * through Vite, the type declarations through `tsc` (tsconfig.lib.json), then the gzipped size.
 * tsc keeps the source's `.ts` import specifiers in the declarations; they are rewritten to `.js`,
 * the form every consumer's TypeScript resolves to the `.d.ts` beside it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'vite';
import { printLibSize } from './lib-size.ts';

const root = resolve(import.meta.dirname, '..');
const lib = join(root, 'lib');

await build({ configFile: join(root, 'vite.lib.config.ts'), logLevel: 'warn' });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.lib.json')], { stdio: 'inherit' });

const RELATIVE_TS = /((?:from\s+|import\()\s*['"]\.{1,2}\/[^'"]*)\.ts(['"])/g;
for (const entry of readdirSync(join(lib, 'types'), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(RELATIVE_TS, '$1.js$2');
  if (fixed !== text) writeFileSync(file, fixed);
}
printLibSize(lib);
