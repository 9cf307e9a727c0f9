import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inlines, sectionBlocks, specSections } from '../../src/app/learn/spec-text.ts';

const SPEC = process.env.RCP_SHARED_DIR ? `${process.env.RCP_SHARED_DIR}/spec/rcp-1.0.md` : `${import.meta.dirname}/../../../shared/rcp/spec/rcp-1.0.md`;

describe('the spec, section by section', () => {
  it('cuts the real spec into its numbered sections and appendices', () => {
    const sections = specSections(readFileSync(SPEC, 'utf8'));
    const numbers = sections.map((s) => s.number);
    for (const n of ['4', '4.5', '5.2', '7.3.1', '7.15', '13.2', '14.5', '16.3', 'F']) expect(numbers, n).toContain(n);
    expect(sections.find((s) => s.number === '7.15')!.title).toBe('ping — REQUIRED');
    // 7.7 includes its subsections; 7.15 does not run into 7.16.
    const retrieve = sectionBlocks(sections, '7.7')!;
    expect(retrieve.filter((b) => b.kind === 'heading').map((b) => (b as { text: string }).text)).toEqual(['7.7.1 Determinism & reproducibility', '7.7.2 Granularity, token budget & confidence', '7.7.3 Agentic sessions & iterative retrieval']);
    const ping = sectionBlocks(sections, '7.15')!;
    expect(ping.some((b) => b.kind === 'paragraph' && b.text.includes('MUST** echo any `nonce`'))).toBe(true);
    expect(ping.some((b) => b.kind === 'heading')).toBe(false);
    expect(sectionBlocks(sections, '99')).toBeUndefined();
  });

  it('reads blocks: code, tables, lists, quotes, paragraphs', () => {
    const [s] = specSections('## 1. A\nOne\ntwo.\n\n```json\n{ "a": 1 }\n```\n| x | y |\n|---|---|\n| `a\\|b` | 2 |\n- first\n  continued\n- second\n> a note\n');
    expect(sectionBlocks([s], '1')).toEqual([
      { kind: 'paragraph', text: 'One two.' },
      { kind: 'code', text: '{ "a": 1 }' },
      { kind: 'table', rows: [['x', 'y'], ['`a|b`', '2']] },
      { kind: 'list', items: ['first continued', 'second'] },
      { kind: 'quote', text: 'a note' },
    ]);
  });

  it('inline markup', () => {
    expect(inlines('A **MUST** use `id`, see [§4](#x) *here*.')).toEqual([
      { kind: 'text', text: 'A ' },
      { kind: 'strong', text: 'MUST' },
      { kind: 'text', text: ' use ' },
      { kind: 'code', text: 'id' },
      { kind: 'text', text: ', see ' },
      { kind: 'text', text: '§4' },
      { kind: 'text', text: ' ' },
      { kind: 'em', text: 'here' },
      { kind: 'text', text: '.' },
    ]);
  });
});
