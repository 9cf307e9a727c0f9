/** Naming a model (issue 45): which are built, and the refusal an unknown name gets. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtModelNames, checkModelName, unknownModelMessage } from '../../src/models/built-models.ts';
import { modelArg } from '../../bridges/model-arg.ts';

const dir = mkdtempSync(join(tmpdir(), 'built-models-'));
const base = `${dir}/`;
const manifest = (name: string) => ({ name, dimension: 384, vocabularySize: 1, normalized: true, license: 'MIT', description: '', files: {} });
for (const name of ['multilingual-e5-small', 'minilm-l6-v2']) {
  mkdirSync(join(dir, name));
  writeFileSync(join(dir, name, 'manifest.json'), JSON.stringify(manifest(name)));
}
mkdirSync(join(dir, 'glove-static-100d')); // a folder without its manifest is not built
mkdirSync(join(dir, 'splade-tiny'));
writeFileSync(join(dir, 'splade-tiny', 'manifest.json'), JSON.stringify(manifest('splade-tiny'))); // not a dense model of the catalog
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('built models', () => {
  it('lists the catalog models with a manifest, in catalog order', async () => {
    expect(await builtModelNames(base, true)).toEqual(['minilm-l6-v2', 'multilingual-e5-small']);
    expect(await builtModelNames(`${dir}/missing/`, true)).toEqual([]);
  });

  it('an unknown name is refused with the built list; a built name and auto pass', async () => {
    expect(await checkModelName('multilingual-e5-small', base, true)).toBeUndefined();
    expect(await checkModelName('auto', base, true)).toBeUndefined();
    expect(await checkModelName('glove-static-100d', base, true)).toBe(unknownModelMessage('glove-static-100d', ['minilm-l6-v2', 'multilingual-e5-small']));
    expect(unknownModelMessage('e6', ['minilm-l6-v2', 'multilingual-e5-small'])).toBe(
      "model 'e6' is not built here; built models: minilm-l6-v2, multilingual-e5-small, or 'auto' for the default",
    );
    expect(unknownModelMessage('e6', [])).toContain('npm run models');
  });
});

describe('the bridges\' --model (its parsing: test/bridges/bridge-args.test.ts)', () => {
  it('checks the name against the built models before anything starts', async () => {
    expect(await modelArg('minilm-l6-v2', base)).toBe('minilm-l6-v2');
    expect(await modelArg(undefined, base)).toBeUndefined();
    await expect(modelArg('nope', base)).rejects.toThrow("--model: model 'nope' is not built here; built models: minilm-l6-v2, multilingual-e5-small");
  });
});

describe('the default decision (catalog.ts)', () => {
  it('is the models config default and is named in the model notes', async () => {
    const { DEFAULT_DECISION } = await import('../../src/models/catalog.ts');
    const { DEFAULT_MODEL } = await import('../../src/models/settings.ts');
    const { DEFAULT_MODEL_CONFIG } = await import('../../src/models/model-config.ts');
    const { defaultNote } = await import('../../src/models/runtime.ts');
    expect(DEFAULT_MODEL).toBe(DEFAULT_DECISION.model);
    expect(DEFAULT_MODEL_CONFIG.embedder).toBe(DEFAULT_DECISION.model);
    expect(defaultNote(DEFAULT_DECISION.model)).toBe(`default model: ${DEFAULT_DECISION.model} (${DEFAULT_DECISION.why})`);
    expect(defaultNote('multilingual-e5-small')).toMatch(new RegExp(`^model chosen: multilingual-e5-small; the default is ${DEFAULT_DECISION.model} \\(`));
  });
});
