/** `rcp-in-page index --model` (issue 45): an unknown name exits 2 listing the built models, and nothing is written. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cli-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rcp-in-page index --model', () => {
  it('refuses a model that is not built, naming those that are; the bundle folder is not created', () => {
    const models = join(dir, 'models');
    mkdirSync(join(models, 'multilingual-e5-small'), { recursive: true });
    const manifest = { name: 'multilingual-e5-small', dimension: 384, vocabularySize: 1, normalized: true, license: 'MIT', description: '', files: {} };
    writeFileSync(join(models, 'multilingual-e5-small', 'manifest.json'), JSON.stringify(manifest));
    const site = join(dir, 'site');
    mkdirSync(site);
    writeFileSync(join(site, 'a.html'), '<html><body><h1>Recht auf Bildung</h1></body></html>');
    const out = join(dir, 'out');
    const r = spawnSync('node', ['--import', 'tsx', 'cli/rcp-in-page.ts', 'index', site, '--out', out, '--models', models, '--model', 'multilingual-e6'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain("model 'multilingual-e6' is not built here; built models: multilingual-e5-small");
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
