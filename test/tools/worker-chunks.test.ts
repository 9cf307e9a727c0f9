/**
 * The worker build's guard (tools/vite/worker-chunks.ts): a chunk that imports a worker's entry file,
 * statically or lazily, fails the build (WebKit would evaluate the worker's script twice); chunks
 * importing each other do not.
 */
import { describe, expect, it } from 'vitest';
import { workerEntryNotImported } from '../../tools/vite/worker-chunks.ts';

const chunk = (fileName: string, isEntry: boolean, imports: string[] = [], dynamicImports: string[] = []) => ({ type: 'chunk' as const, fileName, isEntry, imports, dynamicImports });

function check(files: ReturnType<typeof chunk>[]): string | undefined {
  const plugin = workerEntryNotImported();
  let failed: string | undefined;
  const ctx = { error: (m: string) => void (failed = m) };
  (plugin.generateBundle as unknown as (this: typeof ctx, o: unknown, b: Record<string, unknown>) => void).call(ctx, {}, Object.fromEntries(files.map((f) => [f.fileName, f])));
  return failed;
}

describe('worker chunks never import the entry', () => {
  it('passes an entry that loads its engine as a chunk, whose chunks import each other', () => {
    expect(check([chunk('worker-entry.js', true, [], ['worker.js']), chunk('worker.js', false, ['errors.js'], ['runtime.js']), chunk('runtime.js', false, ['worker.js', 'errors.js']), chunk('errors.js', false)])).toBeUndefined();
  });

  it('fails a chunk that imports the entry, statically or lazily, naming both', () => {
    expect(check([chunk('worker.js', true, [], ['runtime.js']), chunk('runtime.js', false, ['worker.js'])])).toMatch(/runtime\.js imports the entry worker\.js/);
    expect(check([chunk('worker.js', true), chunk('late.js', false, [], ['worker.js'])])).toMatch(/late\.js imports the entry worker\.js/);
  });
});
