/**
 * The text of a .docx (Office Open XML): its `word/document.xml`, read from the ZIP container with
 * the browser's own DecompressionStream('deflate-raw') and parsed with DOMParser (inert). Paragraphs
 * become lines, tabs and breaks are kept; nothing is rendered. No dependency: the container format
 * (PKWARE APPNOTE: end-of-central-directory → central directory → local header) is a few reads.
 */
import { decompressor } from '../util/compression.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** One file of a ZIP archive, inflated; undefined when absent. Throws on a damaged archive. */
export async function zipEntry(data: ArrayBuffer, name: string): Promise<Uint8Array | undefined> {
  const v = new DataView(data);
  let eocd = -1;
  for (let i = data.byteLength - 22; i >= Math.max(0, data.byteLength - 22 - 65_535); i--) {
    if (v.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a ZIP archive (no end of central directory)');
  const count = v.getUint16(eocd + 10, true);
  let p = v.getUint32(eocd + 16, true);
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (v.getUint32(p, true) !== CENTRAL) throw new Error('damaged ZIP central directory');
    const method = v.getUint16(p + 10, true);
    const compressed = v.getUint32(p + 20, true);
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    const local = v.getUint32(p + 42, true);
    const entry = decoder.decode(new Uint8Array(data, p + 46, nameLen));
    p += 46 + nameLen + extraLen + commentLen;
    if (entry !== name) continue;
    if (v.getUint32(local, true) !== LOCAL) throw new Error('damaged ZIP entry');
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    const body = new Uint8Array(data, start, compressed);
    if (method === 0) return body.slice();
    if (method !== 8) throw new Error(`unsupported ZIP compression method ${method}`);
    const stream = new Blob([body]).stream().pipeThrough(decompressor('deflate-raw'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  return undefined;
}

/** Title (docProps/core.xml dc:title) and body text of a .docx. */
export async function docxToText(data: ArrayBuffer): Promise<{ title?: string; text: string }> {
  const xml = await zipEntry(data, 'word/document.xml');
  if (!xml) throw new Error('not a Word document (no word/document.xml)');
  const doc = new DOMParser().parseFromString(new TextDecoder().decode(xml), 'application/xml');
  if (doc.getElementsByTagName('parsererror').length > 0) throw new Error('damaged Word document (word/document.xml is not XML)');
  const paragraphs: string[] = [];
  for (const para of Array.from(doc.getElementsByTagNameNS(W, 'p'))) {
    let line = '';
    const walk = (node: Element) => {
      for (const child of Array.from(node.children)) {
        if (child.namespaceURI === W && child.localName === 't') line += child.textContent ?? '';
        else if (child.namespaceURI === W && child.localName === 'tab') line += '\t';
        else if (child.namespaceURI === W && (child.localName === 'br' || child.localName === 'cr')) line += '\n';
        else if (!(child.namespaceURI === W && child.localName === 'p')) walk(child);
      }
    };
    walk(para);
    paragraphs.push(line);
  }
  let title: string | undefined;
  const core = await zipEntry(data, 'docProps/core.xml').catch(() => undefined);
  if (core) {
    const props = new DOMParser().parseFromString(new TextDecoder().decode(core), 'application/xml');
    title = props.getElementsByTagNameNS('http://purl.org/dc/elements/1.1/', 'title')[0]?.textContent?.trim() || undefined;
  }
  return { title, text: paragraphs.join('\n').replace(/\n{3,}/g, '\n\n').trim() };
}
