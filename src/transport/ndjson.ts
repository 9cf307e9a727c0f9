/**
 * §5.1 newline-delimited JSON framing, shared by the stdio bridge and its tests. Buffers partial
 * reads until `\n`, tolerates blank lines and `\r\n`, and never assumes one message per read.
 */
export class LineBuffer {
  private pending = '';

  /** Appends a chunk and returns the complete, non-blank lines it finished. */
  push(chunk: string): string[] {
    this.pending += chunk;
    const parts = this.pending.split('\n');
    this.pending = parts.pop() ?? '';
    return parts.map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
  }

  /** At EOF: the last line if it lacked its newline. */
  flush(): string[] {
    const rest = this.pending.trim() === '' ? [] : [this.pending];
    this.pending = '';
    return rest;
  }
}

/** One frame as a stdio line: the JSON text contains no raw newline, so only `\n` is appended. */
export const toLine = (frame: string): string => `${frame}\n`;
