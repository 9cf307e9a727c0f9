/**
 * What a file's bytes are, whatever its name says: a known binary format by its magic number, or
 * binary by content (NUL bytes, many control characters, or bytes that are not UTF-8). A renamed
 * ELF, PNG or ZIP is never indexed as text.
 */

/** Magic numbers of common binary formats (the name shown to the user). */
const MAGIC: readonly [string, readonly number[]][] = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['WebP/RIFF media', [0x52, 0x49, 0x46, 0x46]],
  ['ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['Windows executable', [0x4d, 0x5a]],
  ['ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
  ['gzip archive', [0x1f, 0x8b]],
  ['PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['WebAssembly module', [0x00, 0x61, 0x73, 0x6d]],
  ['SQLite database', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]],
  ['Office 97 document', [0xd0, 0xcf, 0x11, 0xe0]],
];

export type Sniffed = { kind: 'text' } | { kind: 'binary'; format?: string };

/** Sniffs the first bytes of a file (8 KB is plenty). */
export function sniff(head: Uint8Array): Sniffed {
  for (const [format, magic] of MAGIC) if (magic.every((b, i) => head[i] === b)) return { kind: 'binary', format };
  if (head.length === 0) return { kind: 'text' };
  let control = 0;
  for (const b of head) {
    if (b === 0) return { kind: 'binary' };
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  if (control / head.length > 0.1) return { kind: 'binary' };
  // Not UTF-8 (allowing a sequence cut at the end of the sample): Latin-1 text is rare, binaries are not.
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, lastBoundary(head)));
  } catch {
    return { kind: 'binary' };
  }
  return { kind: 'text' };
}

/** Length of `b` without a UTF-8 sequence cut off at its end. */
function lastBoundary(b: Uint8Array): number {
  let i = b.length;
  for (let back = 1; back <= 3 && i - back >= 0; back++) {
    const c = b[i - back];
    if ((c & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    if ((c & 0xc0) === 0xc0) return i - back; // lead byte of a sequence that may be cut
    break;
  }
  return i;
}
