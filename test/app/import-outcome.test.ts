import { describe, expect, it } from 'vitest';
import { filesOutcome } from '../../src/app/import-panel.ts';
import type { FileOutcome } from '../../src/import/parse.ts';

const parsed = (name: string): FileOutcome => ({ name, status: 'parsed', docs: [{ text: 'x' }] });
const not = (name: string, status: 'empty' | 'unsupported' | 'binary' | 'failed'): FileOutcome => ({ name, status, reason: 'because' });

describe("the dock's outcome of a file import counts every file", () => {
  it('one of three imported: the others counted by why', () => {
    expect(filesOutcome([not('tool.txt', 'binary'), not('empty.txt', 'empty'), parsed('logbook.txt')], { added: 1, chunks: 36_773, cancelled: false })).toBe(
      '1 of 3 files imported (1 document, 36,773 passages): 1 binary, refused; 1 empty.',
    );
  });
  it('every file imported: the documents, and from how many files', () => {
    expect(filesOutcome([parsed('a.md'), parsed('b.md')], { added: 2, chunks: 5, cancelled: false })).toBe('Imported 2 documents (5 passages) from 2 files.');
    expect(filesOutcome([parsed('a.md')], { added: 1, chunks: 1, cancelled: false })).toBe('Imported 1 document (1 passage).');
  });
  it('nothing importable: none of them, and why', () => {
    expect(filesOutcome([not('a.bin', 'binary'), not('b.bin', 'binary'), not('c.png', 'unsupported'), not('d.json', 'failed')], undefined)).toBe('0 of 4 files imported: 2 binary, refused; 1 unsupported; 1 failed.');
  });
});
