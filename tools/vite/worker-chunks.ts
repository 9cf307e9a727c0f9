/**
 * Vite plugin for worker builds: fails the build when a chunk imports an entry file. WebKit
 * evaluates a worker's script a second time when one of its chunks imports it (src/worker-entry.ts
 * says what that broke), and a bundler puts the modules an entry shares with its lazy chunks into
 * the entry unless the entry only loads the rest as a chunk, as src/worker-entry.ts does.
 */
import type { Plugin } from 'vite';

export function workerEntryNotImported(): Plugin {
  return {
    name: 'rcp-worker-entry-not-imported',
    generateBundle(_, bundle) {
      const entries = new Set(Object.values(bundle).flatMap((f) => (f.type === 'chunk' && f.isEntry ? [f.fileName] : [])));
      for (const f of Object.values(bundle)) {
        if (f.type !== 'chunk') continue;
        const bad = [...f.imports, ...f.dynamicImports].filter((i) => entries.has(i) && i !== f.fileName);
        if (bad.length) this.error(`${f.fileName} imports the entry ${bad.join(', ')}: WebKit would evaluate that worker's script twice (src/worker-entry.ts)`);
      }
    },
  };
}
