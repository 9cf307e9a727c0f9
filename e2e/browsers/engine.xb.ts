/**
 * The engine under the page in Firefox ESR and WebKitGTK (issue 44): encoder kernel and encoder
 * parity, and the faults of deliverable 5 — a second tab, a tab killed during an import, quota
 * exhaustion, a private profile. Driven over the bridge page's raw RCP session
 * (tools/lib/rcp-page.ts ported to app.ts), as the Chromium specs do.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { STATIC_MODEL } from '../support/playground.ts';
import { pageBundle } from '../support/page-bundle.ts';
import { call, docs, openBridge, openPlayground, progressSeen, resetOrigin, search, waitText } from './app.ts';
import { BROWSERS, launch, type BrowserName, type BrowserSession, type Tab } from './driver.ts';
import { startApp, type AppServer } from './server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const REFERENCE = JSON.parse(readFileSync(join(ROOT, 'test/models/fixtures/reference-embeddings.json'), 'utf8')) as { texts: { text: string; embedding: number[] }[] };
const T = { timeout: 600_000 };

const cosine = (a: number[], b: number[]) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};

let app: AppServer;
let kernels = '';
before(async () => {
  app = await startApp();
  kernels = await pageBundle(new URL('../support/encoder-kernels-entry.ts', import.meta.url), 'encoderKernelsBundle');
});
after(() => app.close());

/**
 * Runs `body`, and on failure prints what the browser's consoles said (Firefox: the page and its
 * workers), with a step log, so a hang in CI leaves evidence of where it stood.
 */
async function withLogs(session: () => BrowserSession, what: string, body: (step: (name: string) => void) => Promise<void>): Promise<void> {
  const started = Date.now();
  const steps: string[] = [];
  try {
    await body((name) => steps.push(`${Date.now() - started} ms: ${name}`));
  } catch (e) {
    const browser = session();
    console.log(`# ${browser.name}: ${what}: steps begun: ${steps.join('; ')}`);
    const logs = await Promise.race([browser.logs(), new Promise<string[]>((ok) => setTimeout(() => ok(['(logs unavailable)']), 10_000))]);
    console.log(`# ${browser.name}: ${what} failed after ${Date.now() - started} ms; the browser's last console lines:\n${logs.slice(-60).map((l) => `#   ${l.slice(0, 300)}`).join('\n')}`);
    throw e;
  }
}

/** A first `embed` that answers (retryable errors retried). */
const embedOnce = async (tab: Tab): Promise<void> => {
  for (let attempt = 0; ; attempt++) {
    const w = await call(tab, 'embed', { inputs: ['warm up'], encoding: 'json' });
    if (!w.error) return;
    assert.ok(w.error.data?.retryable && attempt < 5, JSON.stringify(w.error));
  }
};

/**
 * The first `embed` (it loads the model): 'ready', or, when it is unanswered after 90 s, what a
 * `ping` then says — unanswered is the engine worker's thread held, not a slow load.
 */
async function warmUp(tab: Tab): Promise<'ready' | string> {
  const late = Symbol('late');
  const first = embedOnce(tab).then(() => 'ready' as const);
  const outcome = await Promise.race([first, new Promise<typeof late>((ok) => setTimeout(() => ok(late), 90_000))]);
  if (outcome !== late) return outcome;
  first.catch(() => undefined); // it ends when the browser does
  const ping = await Promise.race([call(tab, 'ping', {}).then(() => 'answered', () => 'failed'), new Promise<string>((ok) => setTimeout(() => ok('unanswered for 20 s'), 20_000))]);
  return `the first embed unanswered after 90 s; a ping ${ping}`;
}

const total = async (tab: Tab): Promise<number> => (await call(tab, 'x-inpage/documents', { limit: 1 })).result.total;

for (const name of BROWSERS) {
  describe(`engine in ${name}`, () => {
    let browser: BrowserSession;
    let tab: Tab;
    before(async () => {
      browser = await launch(name);
      tab = browser.tab;
    });
    after(() => browser.close());

    // e2e/encoder-kernels.spec.ts: each GEMM variant the engine can pick equals the JS reference.
    test('the int8 GEMM variants this engine validates equal the reference linear layer; the others are refused at load', T, async () => {
      await tab.goto(`${app.origin}/__blank`); // no CSP there: the bundled test code is injected
      await tab.evaluate((src: string) => (0, eval)(src), kernels);
      for (const dot of ['relaxed', 'relaxed16', 'simd'] as const) {
        const result = await tab.evaluate(async (d: string) => {
          try {
            return { disagreement: (window as unknown as { gemmDisagreement(d: string): unknown }).gemmDisagreement(d) };
          } catch (e) {
            return { refused: String(e) };
          }
        }, dot);
        console.log(`# ${name}: GEMM ${dot}: ${JSON.stringify(result)}`);
        // Fixed-width SIMD is the floor every engine runs; a relaxed variant either compiles and
        // agrees, or is refused at compile time, and the runtime then keeps to 'simd' (docs/browsers.md).
        if (dot === 'simd' || !('refused' in result)) assert.deepEqual(result, { disagreement: null });
        else assert.match(result.refused ?? '', /CompileError|invalid|unrecognized|unknown|opcode/i);
      }
    });

    // e2e/encoder-parity.spec.ts, q8 on WASM with the engine's own kernels.
    test('the encoder (minilm-l6-v2 q8 on WASM) matches sentence-transformers: min cosine ≥ 0.99', T, () => withLogs(() => browser, 'encoder parity', async (step) => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify({ embedder: 'minilm-l6-v2', dtype: 'q8', device: 'wasm', runtime: 'auto' }), 'application/json');
      // Firefox under WebDriver BiDi used to hold the engine worker's thread for good while it
      // started its first encoder worker (docs/browsers.md, "the encoder start hang"): the page
      // starts them now, and a hang is a failure, not a retry.
      step('resetOrigin');
      await resetOrigin(tab, app.origin);
      step('openBridge');
      const init = await openBridge(tab, app.origin, `xb-encoder-${name}`, {}, '?deadline.embed=300000');
      assert.equal(init.result.capabilities.embed.dimension, 384);
      step('warm-up embed');
      const warm = await warmUp(tab);
      assert.equal(warm, 'ready', `the encoder start hang: ${warm}`);
      step('info');
      const info = await call(tab, 'info', {});
      const runtime = String(info.result._meta?.models?.embed?.runtime);
      assert.match(runtime, /^rcp-kernels \(WASM .*, \d workers? started by the page(, queries in this thread)?\)$/);
      step('embed');
      const r = await call(tab, 'embed', { inputs: REFERENCE.texts.map((t) => t.text), encoding: 'json' });
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      const cosines = (r.result.vectors as number[][]).map((v, i) => cosine(v, REFERENCE.texts[i].embedding));
      console.log(`# ${name}: minilm-l6-v2 q8 on ${runtime}: min cosine ${Math.min(...cosines).toFixed(6)} over ${cosines.length} texts`);
      assert.equal(cosines.length, REFERENCE.texts.length);
      for (const c of cosines) assert.ok(c >= 0.99, `cosine ${c}`);
    }));

    // e2e/multi-tab.spec.ts
    test('a second tab: both write to one corpus and each sees the other’s documents', T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      await resetOrigin(tab, app.origin);
      await openBridge(tab, app.origin, 'xb-a');
      const second = await browser.newTab();
      try {
        await openBridge(second, app.origin, 'xb-b');
        // One write from each tab, each tab selected while it writes (a background tab is throttled).
        await tab.front();
        assert.equal((await call(tab, 'index/add', { documents: docs('a', 20, 'albatross over the waves') })).error, undefined);
        await second.front();
        assert.equal((await call(second, 'index/add', { documents: docs('b', 20, 'barracuda under the reef') })).error, undefined);
        const hits = (t: Tab, q: string) => t.evaluate(async (query: string) => ((await (window as unknown as { rcp(m: string, p: unknown): Promise<{ result: { hits: unknown[] } }> }).rcp('retrieve', { query, k: 100, mode: 'sparse', unit: 'document' })).result.hits.length), q);
        // The other tab's commit arrives by broadcast: polled.
        for (const [t, q] of [[tab, 'barracuda'], [second, 'albatross']] as const) {
          await t.front();
          const end = Date.now() + 60_000;
          while ((await hits(t, q)) !== 20) {
            assert.ok(Date.now() < end, `${q} never reached the other tab`);
            await new Promise((r) => setTimeout(r, 250));
          }
        }
        assert.equal(await total(tab), 40);
        assert.equal(await total(second), 40);
      } finally {
        await second.close();
      }
    });

    // e2e/durability.spec.ts: the tab goes away mid-write.
    test('a tab closed during an import loses nothing acknowledged and keeps nothing half-written', T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      await resetOrigin(tab, app.origin);
      const doomed = await browser.newTab();
      await openBridge(doomed, app.origin, 'xb-doomed');
      assert.equal((await call(doomed, 'index/add', { documents: docs('kept', 50, 'acknowledged lighthouse keeper') })).result.ids.length, 50);
      await doomed.evaluate((batch: unknown) => {
        const w = window as unknown as { rcp(m: string, p: unknown): Promise<unknown>; __bulkAnswered: boolean };
        w.__bulkAnswered = false;
        void w.rcp('index/add', { documents: batch, _meta: { progressToken: 'bulk' } }).then(() => (w.__bulkAnswered = true));
      }, docs('interrupted', 3000, 'interrupted bulk cargo'));
      await progressSeen(doomed, 'bulk');
      assert.equal(await doomed.evaluate(() => (window as unknown as { __bulkAnswered: boolean }).__bulkAnswered), false);
      await doomed.close(); // its worker is terminated before the commit
      await openBridge(tab, app.origin, 'xb-after');
      assert.equal(await total(tab), 50);
      const bulk = await call(tab, 'retrieve', { query: 'interrupted bulk cargo', k: 5, mode: 'sparse' });
      assert.deepEqual(bulk.result.hits, []);
      assert.deepEqual((await call(tab, 'index/add', { documents: [{ id: 'after', text: 'written after the crash' }] })).result.ids, ['after']);
    });

    if (name === 'firefox') {
      // The whole browser killed (SIGKILL) mid-import, then started again on the same profile.
      test('the browser killed during an import: on its profile again, everything acknowledged is there', T, async () => {
        const { mkdtempSync, rmSync } = await import('node:fs');
        const { tmpdir } = await import('node:os');
        const profileDir = mkdtempSync(join(tmpdir(), 'rcp-xb-killed-'));
        try {
          app.resetOverrides();
          app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
          const victim = await launch('firefox', { profileDir });
          await openBridge(victim.tab, app.origin, 'xb-victim');
          assert.equal((await call(victim.tab, 'index/add', { documents: docs('kept', 50, 'acknowledged lighthouse keeper') })).result.ids.length, 50);
          await victim.tab.evaluate((batch: unknown) => {
            void (window as unknown as { rcp(m: string, p: unknown): Promise<unknown> }).rcp('index/add', { documents: batch, _meta: { progressToken: 'bulk' } });
          }, docs('interrupted', 3000, 'interrupted bulk cargo'));
          await progressSeen(victim.tab, 'bulk');
          await victim.kill();
          const again = await launch('firefox', { profileDir });
          try {
            await openBridge(again.tab, app.origin, 'xb-again');
            assert.equal(await total(again.tab), 50);
            assert.deepEqual((await call(again.tab, 'retrieve', { query: 'interrupted bulk cargo', k: 5, mode: 'sparse' })).result.hits, []);
          } finally {
            await again.close();
          }
        } finally {
          rmSync(profileDir, { recursive: true, force: true });
        }
      });
    }

    test(quotaTitle(name), T, async () => {
      if (name === 'webkit') {
        // WebKitWebDriver offers no quota control and WebKitGTK has no navigator.storage to read
        // one from (docs/browsers.md): what can be checked is that no quota is advertised and that
        // a large batch is taken whole.
        app.resetOverrides();
        app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
        await resetOrigin(tab, app.origin);
        assert.equal(await tab.evaluate(() => typeof navigator.storage), 'undefined');
        await openBridge(tab, app.origin, 'xb-quota');
        assert.equal((await call(tab, 'index/add', { documents: docs('huge', 400, 'a very long passage, lorem ipsum dolor sit amet') })).result.ids.length, 400);
        assert.equal(await total(tab), 400);
        return;
      }
      // Firefox's temporary-storage limit (KiB) bounds every origin's quota: a profile with 1 MiB.
      const small = await launch('firefox', { prefs: { 'dom.quotaManager.temporaryStorage.fixedLimit': 1024 } });
      try {
        app.resetOverrides();
        app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
        await openBridge(small.tab, app.origin, 'xb-quota');
        assert.equal((await call(small.tab, 'index/add', { documents: docs('small', 5, 'tiny seed') })).result.ids.length, 5);
        const big = await call(small.tab, 'index/add', { documents: docs('huge', 2000, 'a very long passage that fills the quota quickly, lorem ipsum dolor sit amet') });
        assert.equal(big.error?.code, -32013, JSON.stringify(big).slice(0, 500));
        assert.match(String(big.error?.data?.detail), /quota/i);
        assert.equal(await total(small.tab), 5);
        assert.deepEqual((await call(small.tab, 'retrieve', { query: 'lorem ipsum', k: 3, mode: 'sparse' })).result.hits, []);
      } finally {
        await small.close();
      }
    });

    test(privateTitle(name), T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      const session = name === 'firefox' ? await launch('firefox', { prefs: { 'browser.privatebrowsing.autostart': true } }) : browser;
      try {
        const t = session.tab;
        if (name === 'webkit') await resetOrigin(t, app.origin);
        await openPlayground(t, app.origin, { sample: false });
        // The notice: this browser keeps nothing of the index once the window closes.
        await waitText(t, '#notices', /not kept after this window closes|cannot tell if this browser discards/i, { timeout: 60_000 });
        // The engine ready first (on a loaded machine its first open takes a while; the add's own
        // deadline is 60 s). Polled, add included (an upsert of one id): WebKitGTK was once seen
        // reloading the playground during this add on a machine at load ~20 (not explained yet).
        await t.waitFor(
          async () => {
            const c = (window as unknown as { rcpClient?: { status(): Promise<{ ready: boolean }>; request(m: string, p: unknown): Promise<unknown> } }).rcpClient;
            if (!(await c?.status())?.ready) return false;
            await c!.request('index/add', { documents: [{ id: 'p', text: 'Private notes about a lighthouse.', meta: { title: 'Private' } }] });
            return true;
          },
          { what: 'the engine ready and the document added', timeout: 300_000, interval: 1000 },
        );
        await search(t, 'lighthouse');
        await waitText(t, '#hits li .hit-title', 'Private');
      } finally {
        if (session !== browser) await session.close();
      }
    });
  });
}

function quotaTitle(name: BrowserName): string {
  return name === 'firefox'
    ? 'quota exhaustion (a 1 MiB profile) is -32013 with a detail, and nothing of the batch is stored'
    : 'quota: WebKitGTK cannot be given a small quota by its driver; no quota is advertised and a large batch is stored whole';
}

function privateTitle(name: BrowserName): string {
  return name === 'firefox'
    ? 'a private window (no persistent storage): a clear notice, and the engine works in memory'
    : 'an ephemeral automation session (no navigator.storage): the notice, and the engine works';
}
