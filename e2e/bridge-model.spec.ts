import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { launchHost } from '../bridges/browser-host.ts';

/**
 * The bridges' `--model NAME|auto` (issue 45): the profile remembers the model, `auto` goes back to
 * the default, and a name that is not built is refused with the built list, before anything starts
 * (and, should a page ask for it anyway, by the worker, which opens no index then).
 */

const root = join(import.meta.dirname, '..');
const E5 = 'multilingual-e5-small';
test.skip(!existsSync(join(root, 'dist', 'models', E5, 'manifest.json')), `dist/models/${E5} is not built`);
test.describe.configure({ timeout: 240_000 });

/** A stdio bridge to talk to request by request; `close` ends stdin (an implicit shutdown) and waits for the exit. */
function bridge(args: string[]) {
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-stdio.ts', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((ok) => child.on('exit', ok));
  let next = 1;
  const answer = async (id: number) => {
    for (let t = 0; t < 2400 && child.exitCode === null; t++) {
      const m = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((f) => f.id === id);
      if (m) return m;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    throw new Error(`no answer to ${id}: ${stderr}`);
  };
  return {
    async call(method: string, params: unknown = {}) {
      const id = next++;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answer(id);
    },
    /** Retries a retryable error (the model still loading on a busy machine: -32014 past the 30 s deadline). */
    async retried(method: string, params: unknown) {
      for (;;) {
        const m = await this.call(method, params);
        if (!m.error?.data?.retryable) return m;
      }
    },
    async close() {
      child.stdin.end();
      return { code: await exited, stderr, stdout };
    },
  };
}
const init = { protocolVersion: 1 };

test('an unknown --model exits 2 with the built models listed, and nothing is served', async () => {
  const b = bridge(['--model', 'multilingual-e6']);
  const r = await b.close();
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("--model: model 'multilingual-e6' is not built here; built models: minilm-l6-v2");
  expect(r.stderr).toContain(E5);
  expect(r.stdout).toBe('');
});

test('the HTTP bridge refuses an unknown --model the same way, before it listens', async () => {
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-http.ts', '--port', '0', '--model', 'minilm-l7'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  expect(code).toBe(2);
  expect(stderr).toContain("--model: model 'minilm-l7' is not built here; built models: minilm-l6-v2");
});

test('the profile remembers --model, embed names it, and --model auto goes back to the default', async () => {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-e2e-model-'));
  try {
    const first = bridge(['--profile', profile, '--model', E5]);
    const initialized = (await first.call('initialize', init)).result;
    const identity: string = initialized.capabilities.embed.identity;
    expect(identity.startsWith(`${E5}@`)).toBe(true);
    expect(initialized._meta.models.embed.notes).toContainEqual(expect.stringMatching(new RegExp(`^model chosen: ${E5}; the default is minilm-l6-v2 \\(`)));
    const added = await first.call('index/add', { documents: [{ id: 'bildung', text: 'Jeder hat das Recht auf Bildung.', meta: { lang: 'de' } }] });
    expect(added.result.ids).toEqual(['bildung']);
    const embedded = await first.retried('embed', { inputs: ['right to education'], kind: 'query', model: E5 });
    expect(embedded.result?.model, JSON.stringify(embedded)).toBe(identity);
    expect((await first.close()).code).toBe(0);

    // No flag: the profile's model; the document is still there; another model named is refused.
    const second = bridge(['--profile', profile]);
    expect((await second.call('initialize', init)).result.capabilities.embed.identity).toBe(identity);
    expect((await second.call('retrieve', { query: 'Bildung', k: 1, mode: 'sparse' })).result.hits[0].id).toContain('bildung');
    expect((await second.call('embed', { inputs: ['x'], model: 'minilm-l6-v2' })).error).toMatchObject({ code: -32005, data: { option: 'model' } });
    expect((await second.close()).code).toBe(0);

    // auto: the default model again (the index re-embeds in the background).
    const third = bridge(['--profile', profile, '--model', 'auto']);
    const reset = (await third.call('initialize', init)).result;
    expect(reset.capabilities.embed.identity.startsWith('minilm-l6-v2@')).toBe(true);
    expect(reset._meta.models.embed.notes).toContainEqual(expect.stringMatching(/^default model: minilm-l6-v2 \(/));
    expect((await third.close()).code).toBe(0);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});

test('the worker itself refuses a model that is not built: no session opens', async () => {
  const host = await launchHost({ model: 'multilingual-e6' });
  try {
    await expect(host.openSession(() => undefined)).rejects.toThrow(/model 'multilingual-e6' is not built here; built models: .*multilingual-e5-small/);
  } finally {
    await host.close();
  }
});
