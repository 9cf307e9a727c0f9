/**
 * The RCP/1 spec (markdown, copied into the build) cut into numbered sections, and a section's
 * text into blocks the viewer renders. Pure: no DOM. Only what the spec uses is understood:
 * ATX headings, fenced code, tables, lists, quotes and paragraphs; inline code and emphasis.
 */

export interface SpecSection {
  /** "4", "4.1", "7.3.1", or an appendix letter: "F". */
  number: string;
  title: string;
  depth: number;
  /** The section's own lines, up to its next heading of any depth. */
  body: string[];
}

export type Block =
  | { kind: 'heading'; depth: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'quote'; text: string }
  | { kind: 'table'; rows: string[][] };

const HEADING = /^(#{2,4}) (?:(\d+(?:\.\d+)*)\.? |Appendix ([A-Z]) — )(.+)$/;

/** Every numbered section and appendix of the spec, in order. */
export function specSections(markdown: string): SpecSection[] {
  const out: SpecSection[] = [];
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const m = inCode ? null : HEADING.exec(line);
    if (m) {
      out.push({ number: m[2] ?? m[3], title: m[4].replace(/[`*]/g, '').trim(), depth: m[1].length, body: [] });
      continue;
    }
    out.at(-1)?.body.push(line);
  }
  return out;
}

/** A section and the subsections below it (e.g. "7.7" with 7.7.1–7.7.3), as blocks. */
export function sectionBlocks(sections: readonly SpecSection[], number: string): Block[] | undefined {
  const at = sections.findIndex((s) => s.number === number);
  if (at < 0) return undefined;
  const head = sections[at];
  const blocks: Block[] = [];
  for (let i = at; i < sections.length && (i === at || sections[i].depth > head.depth); i++) {
    if (i > at) blocks.push({ kind: 'heading', depth: sections[i].depth, text: `${sections[i].number} ${sections[i].title}` });
    blocks.push(...toBlocks(sections[i].body));
  }
  return blocks;
}

function toBlocks(lines: readonly string[]): Block[] {
  const out: Block[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    if (line.trim() === '' || line.trim() === '---') {
      i++;
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      i++;
      out.push({ kind: 'code', text: code.join('\n') });
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i].startsWith('|'); i++) {
        const cells = lines[i].replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
        if (!cells.every((c) => /^:?-+:?$/.test(c))) rows.push(cells);
      }
      out.push({ kind: 'table', rows });
    } else if (/^\s*(?:[-*]|\d+\.) /.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && lines[i].trim() !== '' && !/^(```|\||>)/.test(lines[i]); i++) {
        if (/^\s*(?:[-*]|\d+\.) /.test(lines[i])) items.push(lines[i].replace(/^\s*(?:[-*]|\d+\.) /, ''));
        else items[items.length - 1] += ` ${lines[i].trim()}`;
      }
      out.push({ kind: 'list', items });
    } else if (line.startsWith('>')) {
      const text: string[] = [];
      for (; i < lines.length && lines[i].startsWith('>'); i++) text.push(lines[i].replace(/^>\s?/, ''));
      out.push({ kind: 'quote', text: text.join(' ') });
    } else {
      const text: string[] = [];
      for (; i < lines.length && lines[i].trim() !== '' && !/^(```|\||>|\s*(?:[-*]|\d+\.) )/.test(lines[i]); i++) text.push(lines[i].trim());
      out.push({ kind: 'paragraph', text: text.join(' ') });
    }
  }
  return out;
}

export type Inline = { kind: 'text' | 'code' | 'strong' | 'em'; text: string };

/** Inline markup of one block's text: `code`, **strong**, *em*; a link keeps its text. */
export function inlines(text: string): Inline[] {
  const out: Inline[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\([^)]*\)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ kind: 'text', text: text.slice(last, m.index) });
    if (m[1] !== undefined) out.push({ kind: 'code', text: m[1] });
    else if (m[2] !== undefined) out.push({ kind: 'strong', text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: 'em', text: m[3] });
    else out.push({ kind: 'text', text: m[4] });
    last = re.lastIndex;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}
