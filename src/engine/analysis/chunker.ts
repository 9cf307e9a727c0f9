/**
 * Sentence- and paragraph-aware chunking with character offsets into the original text.
 *
 * The text is cut into units — markdown heading lines, and sentences inside paragraphs — each a
 * `[start, end)` range with surrounding whitespace excluded. Units are packed greedily into chunks
 * of at most `size` characters (measured from the first unit's start to the last unit's end); a
 * heading always starts a new chunk. Consecutive chunks share whole trailing sentences totalling at
 * most `overlap` characters (never across a heading). A unit longer than `size` is cut at the last
 * whitespace before the limit (or hard, never inside a surrogate pair). Guarantees: every chunk's
 * text is exactly `text.slice(start, end)`, every non-whitespace character is in some chunk, and
 * there is at least one chunk (`[0,0)` for a blank text).
 */

export interface ChunkSpan {
  start: number;
  end: number;
  /** Markdown heading path in effect above the chunk (outermost first). */
  headings: string[];
}

interface Unit {
  start: number;
  end: number;
  heading?: { level: number; text: string };
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
/** Sentence end: terminal punctuation (plus closing quotes/brackets) then whitespace, or a CJK full stop. */
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s)|[。！？]+["'”’）」』]*/g;

/** The whole text as one chunk (what `chunk:false` indexes). */
export function wholeText(text: string): ChunkSpan[] {
  return [{ start: 0, end: text.length, headings: [] }];
}

function trimRange(text: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  return [start, end];
}

function pushSentences(text: string, start: number, end: number, size: number, out: Unit[]): void {
  const para = text.slice(start, end);
  let from = 0;
  SENTENCE_END.lastIndex = 0;
  const cuts: number[] = [];
  for (let m = SENTENCE_END.exec(para); m; m = SENTENCE_END.exec(para)) cuts.push(m.index + m[0].length);
  cuts.push(para.length);
  for (const cut of cuts) {
    const [s, e] = trimRange(text, start + from, start + cut);
    from = cut;
    if (s < e) pushLong(text, s, e, size, out);
  }
}

/** Splits a unit longer than `size` at whitespace (or hard). */
function pushLong(text: string, s: number, e: number, size: number, out: Unit[]): void {
  while (e - s > size) {
    let cut = s + size;
    const ws = text.slice(s + Math.floor(size / 2), cut).search(/\s\S*$/);
    if (ws >= 0) cut = s + Math.floor(size / 2) + ws;
    else if (/[\udc00-\udfff]/.test(text[cut]) && cut - 1 > s) cut--; // keep surrogate pairs whole, but always advance
    const [a, b] = trimRange(text, s, cut);
    if (a < b) out.push({ start: a, end: b });
    s = trimRange(text, cut, e)[0];
  }
  if (s < e) out.push({ start: s, end: e });
}

function units(text: string, size: number): Unit[] {
  const out: Unit[] = [];
  let paraStart = -1;
  let pos = 0;
  const flush = (end: number): void => {
    if (paraStart >= 0) pushSentences(text, paraStart, end, size, out);
    paraStart = -1;
  };
  for (const line of text.split('\n')) {
    const lineEnd = pos + line.length;
    const h = HEADING.exec(line.trimEnd());
    if (h) {
      flush(pos);
      const [s, e] = trimRange(text, pos, lineEnd);
      out.push({ start: s, end: e, heading: { level: h[1].length, text: h[2].trim() } });
    } else if (line.trim() === '') {
      flush(pos);
    } else if (paraStart < 0) {
      paraStart = pos;
    }
    pos = lineEnd + 1;
  }
  flush(text.length);
  return out;
}

/** Chunks `text`; `size` ≥ 1 and 0 ≤ `overlap` < `size` characters. */
export function chunkText(text: string, size: number, overlap: number): ChunkSpan[] {
  size = Math.max(1, Math.floor(size));
  overlap = Math.max(0, Math.min(Math.floor(overlap), size - 1));
  const us = units(text, size);
  const chunks: ChunkSpan[] = [];
  const stack: { level: number; text: string }[] = [];
  let cur: Unit[] = [];
  let curHeadings: string[] = [];
  const emit = (): void => {
    if (cur.length === 0) return;
    chunks.push({ start: cur[0].start, end: cur[cur.length - 1].end, headings: curHeadings });
  };
  const begin = (first: Unit[]): void => {
    cur = first;
    const lead = cur[0]?.heading;
    curHeadings = stack.filter((h) => !lead || h.level < lead.level).map((h) => h.text);
  };
  for (const u of us) {
    if (u.heading) {
      const onlyHeadings = cur.every((c) => c.heading);
      if (!onlyHeadings || (cur.length > 0 && u.end - cur[0].start > size)) {
        emit();
        cur = [];
      }
      while (stack.length > 0 && stack[stack.length - 1].level >= u.heading.level) stack.pop();
      if (cur.length === 0) begin([u]);
      else cur.push(u);
      stack.push(u.heading);
      continue;
    }
    if (cur.length === 0) {
      begin([u]);
      continue;
    }
    if (u.end - cur[0].start <= size) {
      cur.push(u);
      continue;
    }
    emit();
    // Overlap: whole trailing non-heading units of the previous chunk within `overlap` chars.
    const prevEnd = cur[cur.length - 1].end;
    let i = cur.length;
    while (i > 1 && !cur[i - 1].heading && prevEnd - cur[i - 1].start <= overlap && u.end - cur[i - 1].start <= size) i--;
    const carried = cur.slice(i);
    if (carried.length > 0 && carried[0].heading) carried.length = 0;
    const headingsBefore = curHeadings;
    begin([...carried, u]);
    if (carried.length > 0) curHeadings = headingsBefore.length >= curHeadings.length ? headingsBefore : curHeadings;
  }
  emit();
  // A blank document still gets one (empty) chunk, so its context (title) is searchable.
  if (chunks.length === 0) chunks.push({ start: 0, end: 0, headings: [] });
  return chunks;
}
