import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyRcpReference, methodSections, specUrlFor } from '../../tools/vite/rcp-reference.ts';

describe('the build copies the RCP reference for the console forms', () => {
  it('maps each method to its spec section with GitHub anchors', () => {
    const spec = '### 7.7 `retrieve` — gated by `retrieve`  *(the workhorse)*\n#### 7.3.1 Compact vector encoding\n### 7.17 `memory/build` and `memory/recall` — gated by `memory`\n';
    const s = methodSections(spec, 'https://x/spec.md');
    expect(s.retrieve).toEqual({ number: '7.7', title: 'retrieve — gated by retrieve  (the workhorse)', url: 'https://x/spec.md#77-retrieve--gated-by-retrieve--the-workhorse' });
    expect(s['memory/recall'].number).toBe('7.17');
    expect(Object.keys(s)).toEqual(['retrieve', 'memory/build', 'memory/recall']);
  });

  it('derives the spec address from the schema $id', () => {
    expect(specUrlFor('https://raw.githubusercontent.com/1ay1/rcp/main/schema/rcp-1.0.json')).toBe('https://github.com/1ay1/rcp/blob/main/spec/rcp-1.0.md');
    expect(specUrlFor('urn:other')).toBeUndefined();
  });

  it('copies nothing and says so when ../shared is absent (a user clone)', () => {
    const pub = mkdtempSync(join(tmpdir(), 'rcp-ref-'));
    const before = process.env.RCP_SHARED_DIR;
    process.env.RCP_SHARED_DIR = join(pub, 'no-such-dir');
    try {
      expect(copyRcpReference(pub, pub)).toEqual({ schema: '', sections: '', spec: '' });
      expect(existsSync(join(pub, 'rcp'))).toBe(false);
    } finally {
      if (before === undefined) delete process.env.RCP_SHARED_DIR;
      else process.env.RCP_SHARED_DIR = before;
    }
  });
});
