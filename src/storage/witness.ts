/**
 * The witness: a small record, kept OUTSIDE the IndexedDB database, of what the index held after
 * its last commit (database incarnation, index version, document and passage counts, model). If
 * the browser discards or rolls back the database, the witness survives in the origin's private
 * file system (OPFS) and the next open can say what was lost instead of starting silently empty.
 *
 * Cheap by design: written after a commit, off the commit's path (the answer never waits for
 * it), coalesced (at most one write in flight; the newest record wins), replaced atomically
 * (`createWritable` writes a swap file and swaps it in on close, so a kill leaves the old record
 * or the new one, never a torn one).
 */

import type { IndexLoss, IndexSummary } from '../protocol/control.ts';

export type { IndexLoss, IndexSummary };

export interface WitnessRecord extends IndexSummary {
  format: 1;
  writtenAt: string;
  /** Kept (and reported at every open) until dismissed or the index is cleared on purpose. */
  lost?: IndexLoss;
}

/** The file the witness lives in. */
export interface WitnessFile {
  /** The file's text, or undefined when there is none. */
  read(): Promise<string | undefined>;
  /** Replaces the file's text atomically. */
  write(text: string): Promise<void>;
}

/** What reading the witness found. */
export type WitnessRead = { record?: WitnessRecord; unreadable?: string };

/** The witness file of database `database` in OPFS, or undefined where OPFS is missing (Node, old browsers). */
export function opfsWitnessFile(database: string): WitnessFile | undefined {
  const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
  if (typeof storage?.getDirectory !== 'function') return undefined;
  const name = `rcp-witness-${encodeURIComponent(database)}.json`;
  return {
    async read() {
      const dir = await storage.getDirectory();
      try {
        return await (await (await dir.getFileHandle(name)).getFile()).text();
      } catch (e) {
        if ((e as { name?: string }).name === 'NotFoundError') return undefined;
        throw e;
      }
    },
    async write(text) {
      const dir = await storage.getDirectory();
      const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
      try {
        await w.write(text);
        await w.close();
      } catch (e) {
        await w.abort().catch(() => undefined);
        throw e;
      }
    },
  };
}

/** A witness file in memory (tests, and where OPFS is missing the witness is simply not kept). */
export function memoryWitnessFile(initial?: string): WitnessFile & { text?: string; writes: number } {
  const file = {
    text: initial,
    writes: 0,
    read: async () => file.text,
    write: async (t: string) => {
      file.text = t;
      file.writes++;
    },
  };
  return file;
}

const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

/** Parses a witness file's text; a truncated or foreign file is `unreadable`, never a guess. */
export function parseWitness(text: string | undefined): WitnessRead {
  if (text === undefined) return {};
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch {
    return { unreadable: `not JSON (${text.length} bytes)` };
  }
  const w = r as Partial<WitnessRecord>;
  if (typeof r !== 'object' || r === null || w.format !== 1 || typeof w.storeId !== 'string' || !isCount(w.indexVersion) || !isCount(w.documents) || !isCount(w.chunks)) {
    return { unreadable: 'not a witness record of format 1' };
  }
  return { record: w as WitnessRecord };
}

/**
 * Keeps the witness of one database. It reads the file at once (before any commit can replace
 * it); `check()` compares it with what the open found; `note(summary)` after each commit keeps it
 * current. Writes wait for that first read, are coalesced and never reject (a failed write is
 * counted; the next note tries again). A loss found is carried into every record, and reported
 * to every listener, until `dismiss()`.
 */
export class Witness {
  private readonly initial: Promise<WitnessRead>;
  private pending: WitnessRecord | undefined;
  private writing: Promise<void> | undefined;
  private lost: IndexLoss | undefined;
  private unreadable: string | undefined;
  private readonly listeners = new Set<(loss: IndexLoss) => void>();
  private readonly warningListeners = new Set<(warning: string) => void>();
  /** Writes that failed (e.g. OPFS full); the next note tries again. */
  failures = 0;

  constructor(
    private readonly file: WitnessFile,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.initial = this.readFile();
  }

  /** What the file held when this witness was made. */
  read(): Promise<WitnessRead> {
    return this.initial;
  }

  /**
   * Compares the record with what the open found (`found`, taken as the open completed), starts
   * reporting a loss if there is one, and gives the first record to an index that had none.
   * Resolves with the loss being reported: this one, or an earlier one not yet dismissed.
   */
  async check(found: IndexSummary, findings: OpenFindings): Promise<IndexLoss | undefined> {
    const { record, unreadable } = await this.initial;
    const loss = findLoss(record, found, findings, this.now());
    if (loss) {
      this.lost = loss;
      this.note(found);
      for (const l of this.listeners) l(loss);
    } else if (!record && findings.storedId && found.documents + found.chunks > 0) {
      this.note(found); // an index from before the witness existed (or its record is unreadable): describe it from now on
    }
    if (unreadable && !loss) {
      // Nothing to compare with: say so rather than pass silently. An empty index keeps the bad
      // file (so every open says so) until a commit or a dismissal writes a good record.
      this.unreadable = describeUnreadable(unreadable, found);
      for (const l of this.warningListeners) l(this.unreadable);
    }
    return this.lost;
  }

  /**
   * Set when the record was unreadable at this open (truncated, foreign, or the file system
   * failed): whether the index lost anything before cannot be told. A sentence for people; kept
   * until dismissed.
   */
  get warning(): string | undefined {
    return this.unreadable;
  }

  /** Calls `listener` with the warning when `check` finds the record unreadable; returns an unsubscribe function. */
  onWarning(listener: (warning: string) => void): () => void {
    this.warningListeners.add(listener);
    return () => void this.warningListeners.delete(listener);
  }

  /** The loss being reported, if any. */
  get loss(): IndexLoss | undefined {
    return this.lost;
  }

  /** Calls `listener` with a loss when one is found; returns an unsubscribe function. */
  onLoss(listener: (loss: IndexLoss) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Forgets the loss (the person has seen it, or cleared the index on purpose). */
  dismiss(current: IndexSummary): void {
    this.lost = undefined;
    this.unreadable = undefined;
    this.note(current);
  }

  /** Remembers what the index holds now; written soon, off the caller's path. */
  note(summary: IndexSummary): void {
    const { storeId, indexVersion, documents, chunks, model } = summary;
    this.pending = { format: 1, storeId, indexVersion, documents, chunks, ...(model ? { model } : {}), writtenAt: this.now().toISOString(), ...(this.lost ? { lost: this.lost } : {}) };
    this.writing ??= this.drain();
  }

  /** Settles when every noted record has been written (or failed). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async readFile(): Promise<WitnessRead> {
    try {
      const read = parseWitness(await this.file.read());
      this.lost = read.record?.lost;
      return read;
    } catch (e) {
      return { unreadable: `could not be read (${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? e})` };
    }
  }

  private async drain(): Promise<void> {
    await this.initial; // never replace the record before it was read
    // One write at a time; records noted meanwhile collapse into the newest.
    while (this.pending) {
      const record = this.pending;
      this.pending = undefined;
      try {
        await this.file.write(JSON.stringify(record));
      } catch {
        this.failures++;
      }
    }
    this.writing = undefined;
  }
}

/** What the open found, besides the summary of what the store holds. */
export interface OpenFindings {
  /** The summary's storeId came from the store (false: a fresh id for a database without one). */
  storedId: boolean;
  /** Segments the manifest lists that the store lacks (Engine.missing). */
  missing: readonly string[];
  /** Chromium discarded the database before this open (its `dataLoss` report, src/storage/open.ts). */
  browserDataLoss?: string;
}

/**
 * Compares what the store holds at open with what the witness says it held: a store that is
 * missing, recreated (another storeId), older (a lower version), or at the witness's version
 * with fewer passages or documents, has lost data. Writes after the witness's are normal (it is
 * written after the commit, so it may lag behind, never run ahead). Undefined: nothing lost.
 */
export function findLoss(witness: WitnessRecord | undefined, found: IndexSummary, f: OpenFindings, now = new Date()): IndexLoss | undefined {
  const reasons: string[] = [];
  if (f.missing.length > 0) reasons.push(`the database lists data it no longer holds (${f.missing.length === 1 ? f.missing[0] : `${f.missing.length} segments`})`);
  if (witness && witness.documents + witness.chunks > 0) {
    if (found.indexVersion === 0) reasons.push('the database is empty: the browser discarded or deleted it');
    else if (f.storedId && found.storeId !== witness.storeId) reasons.push('the database was recreated since (it is not the one the record describes)');
    else if (found.indexVersion < witness.indexVersion) reasons.push(`the database went back from version ${witness.indexVersion} to ${found.indexVersion}`);
    else if (found.indexVersion === witness.indexVersion && (found.chunks < witness.chunks || found.documents < witness.documents)) {
      reasons.push(`at version ${found.indexVersion} the database holds fewer documents or passages than it did`);
    }
  }
  if (f.browserDataLoss && (reasons.length > 0 || !witness)) reasons.push(`the browser reported data loss (${f.browserDataLoss})`);
  if (reasons.length === 0) return undefined;
  const expected: IndexSummary = witness ? summaryOf(witness) : { storeId: '', indexVersion: 0, documents: 0, chunks: 0 };
  return { expected, found, reason: reasons.join('; '), detectedAt: now.toISOString(), ...(f.browserDataLoss ? { browser: f.browserDataLoss } : {}) };
}

function summaryOf(w: WitnessRecord): IndexSummary {
  return { storeId: w.storeId, indexVersion: w.indexVersion, documents: w.documents, chunks: w.chunks, ...(w.model ? { model: w.model } : {}) };
}

/** One line for people: the record could not be read, what the index holds, and what to do. */
export function describeUnreadable(why: string, found: IndexSummary): string {
  const n = (x: number) => x.toLocaleString('en');
  return (
    `index record unreadable: the record of what the index held, kept outside its database, ${why.startsWith('could not') ? why : `is ${why}`}, ` +
    `so whether documents were lost before this open cannot be told; the index holds ${n(found.documents)} documents (${n(found.chunks)} passages). ` +
    'If documents you added are missing, re-import them or load an index export.'
  );
}

/** One line for people: what was lost and what to do. */
export function describeLoss(l: IndexLoss): string {
  const n = (x: number) => x.toLocaleString('en');
  const had = `${n(l.expected.documents)} documents (${n(l.expected.chunks)} passages) at version ${l.expected.indexVersion}`;
  const has = `${n(l.found.documents)} documents (${n(l.found.chunks)} passages)`;
  return `index lost: it held ${had}, it now holds ${has}: ${l.reason}. Re-import your documents or load an index export; the record of what was lost stays until dismissed.`;
}
