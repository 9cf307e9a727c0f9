/** bridges/profile-storage.ts storedBackend: the backend read off a profile's IndexedDB folder, not assumed from the flag. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storedBackend } from '../../bridges/profile-storage.ts';

const made: string[] = [];
const profile = (): string => {
  const p = mkdtempSync(join(tmpdir(), 'stored-backend-'));
  made.push(p);
  return p;
};
afterEach(() => made.splice(0).forEach((p) => rmSync(p, { recursive: true, force: true })));

describe('storedBackend', () => {
  it('is undefined before any database was opened (no IndexedDB folder, or an empty one)', () => {
    const p = profile();
    expect(storedBackend(p)).toBeUndefined();
    mkdirSync(join(p, 'Default', 'IndexedDB'), { recursive: true });
    expect(storedBackend(p)).toBeUndefined();
  });

  it('says leveldb where a LevelDB store exists, even beside other files', () => {
    const p = profile();
    mkdirSync(join(p, 'Default', 'IndexedDB', 'http_localhost_0.indexeddb.leveldb'), { recursive: true });
    mkdirSync(join(p, 'Default', 'IndexedDB', 'http_localhost_0.indexeddb.blob'), { recursive: true });
    expect(storedBackend(p)).toBe('leveldb');
  });

  it('says sqlite where the folder holds a store that is not LevelDB', () => {
    const p = profile();
    mkdirSync(join(p, 'Default', 'IndexedDB', 'http_localhost_0'), { recursive: true });
    writeFileSync(join(p, 'Default', 'IndexedDB', 'http_localhost_0', 'indexeddb.sqlite'), '');
    expect(storedBackend(p)).toBe('sqlite');
  });
});
