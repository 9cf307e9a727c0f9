/**
 * The recovery log of one database: files `rcp-log-<database>.<generation>.bin`, each a base
 * snapshot followed by the entries committed after it (frames.ts). Only the newest generation
 * whose base is whole is used; a compaction or a clear writes the next generation and then
 * removes the older ones, so a kill at any point leaves one usable file.
 *
 * Guarantees: `append` resolves only once the entry is flushed to disk; an entry that does not
 * read back whole (torn by a kill) is dropped, with every entry after it; a file of a newer log
 * format is never read or written (a new generation is started beside it).
 */
import { decodeValue, encodeValue, encodeValueInSlices } from '../../bundle/codec.ts';
import { yieldToEventLoop } from '../../util/abort.ts';
import { noteStep, timeStep } from '../../util/heartbeat.ts';
import { runInSlices, type Sliced } from '../../util/slices.ts';
import { FRAME_HEAD, frame, readFrames } from './frames.ts';
import type { LogFolder } from './log-files.ts';
import type { Change, Manifest } from '../../engine/contracts.ts';
import { readHead } from './log-head.ts';
import { LogWaste } from './log-waste.ts';
import { EMPTY_SNAPSHOT, isLogBase, isLogEntry, LOG_FORMAT, LogState, type LogBase, type LogEntry, type Snapshot } from './log-state.ts';

/** What the newest usable file holds, folded. */
export interface ReadLog {
  /** Undefined when there is no usable file. */
  generation?: number;
  state: LogState;
  /** The index version after each entry (in order; the base's first), for catching a store up. */
  versions: number[];
  entries: LogEntry[];
  /** Bytes of the base frame, and of the entries after it. */
  baseBytes: number;
  entryBytes: number;
  /** What was dropped or passed over, for people (torn tail, damaged or newer files). */
  notes: string[];
}

const PREFIX = 'rcp-log-';

export class RecoveryLog {
  private generation: number | undefined;
  private end = 0;
  private baseBytes = 0;
  private entryBytes = 0;
  /** What a fold of the current file would drop (estimated): the log compacts on it. */
  private readonly waste = new LogWaste();
  /** Highest generation seen on disk, usable or not (a new one goes above it). */
  private highest = 0;
  /** Generations of a newer format: never read, written or removed by this engine. */
  private readonly newer = new Set<number>();

  constructor(
    private readonly folder: LogFolder,
    private readonly database: string,
  ) {}

  private name(generation: number): string {
    return `${PREFIX}${encodeURIComponent(this.database)}.${generation}.bin`;
  }

  /** Generations of this database's files on disk, newest first. */
  private async generations(): Promise<number[]> {
    const mine = `${PREFIX}${encodeURIComponent(this.database)}.`;
    const gens = (await this.folder.list())
      .filter((n) => n.startsWith(mine) && n.endsWith('.bin'))
      .map((n) => Number(n.slice(mine.length, -'.bin'.length)))
      .filter((g) => Number.isSafeInteger(g) && g > 0);
    return gens.sort((a, b) => b - a);
  }

  /** Whether a usable file is current (appends go to it). */
  get active(): boolean {
    return this.generation !== undefined;
  }

  /** Bytes of the current file: its base, the entries after it, and of those bytes what a fold would drop (estimated). */
  get backlog(): { baseBytes: number; entryBytes: number; deadBytes: number } {
    return { baseBytes: this.baseBytes, entryBytes: this.entryBytes, deadBytes: this.waste.dead };
  }

  /**
   * The index version the log reached, without folding it (log-head.ts), when its newest file is
   * its only one, whole and of this format; that file is then current. Undefined otherwise, and
   * `read` must fold (it also cuts and reports a torn tail, and removes what is not usable). Must
   * run under the log lock.
   */
  async head(): Promise<{ generation: number; manifest: Manifest | undefined } | undefined> {
    const gens = await this.generations();
    if (gens.length !== 1) return undefined; // none, or a compaction or clear cut off before it removed the older file
    const head = await this.folder.scan(this.name(gens[0]), readHead);
    if (!head) return undefined;
    this.highest = this.generation = gens[0];
    this.end = head.end;
    this.baseBytes = head.baseBytes;
    this.entryBytes = head.end - head.baseBytes;
    this.waste.base(EMPTY_SNAPSHOT, 0); // unknown without a fold: the length bound covers what was superseded before this open
    return { generation: gens[0], manifest: head.manifest };
  }

  /**
   * Reads and folds the newest usable file, cuts a torn tail off it, and removes older and
   * unusable files below it (a newer format's file is left alone). Must run under the log lock.
   */
  async read(): Promise<ReadLog> {
    const notes: string[] = [];
    const gens = await this.generations();
    this.highest = gens[0] ?? 0;
    for (const g of gens) {
      const bytes = await this.folder.read(this.name(g));
      if (!bytes) continue;
      const { payloads, dropped, base } = timeStep(`recovery log: decoding a base (${Math.round(bytes.length / 1024)} KB file)`, () => {
        const read = readFrames(bytes);
        return { ...read, base: read.payloads.length ? safeDecode(read.payloads[0]) : undefined };
      });
      if (!isLogBase(base)) {
        const format = (base as { format?: unknown } | undefined)?.format;
        if (typeof format === 'number' && format > LOG_FORMAT) {
          notes.push(`recovery log generation ${g} is of format ${format}, newer than this engine's ${LOG_FORMAT}: left untouched and not used`);
          this.newer.add(g);
          continue;
        }
        notes.push(`recovery log generation ${g} has no whole base (${dropped ?? 'not a log base'}): removed`);
        await this.folder.remove(this.name(g));
        continue;
      }
      await yieldToEventLoop(); // the decode above and the state below each hold the thread (a 35 MB file: 0.3 s each under load)
      const state = timeStep('recovery log: the base as state', () => {
        const s = new LogState(base.snapshot);
        this.waste.base(base.snapshot, payloads[0].length + FRAME_HEAD);
        return s;
      });
      // A fold of many entries gives the event loop turns between them (a compaction runs it on a working index).
      const { entries, versions, at, cut = dropped } = await runInSlices(foldEntries(payloads, state, this.waste), 'recovery log: folding entries');
      if (cut) {
        notes.push(`recovery log: ${cut}; the entries from there on were not acknowledged and are dropped`);
        await this.folder.truncate(this.name(g), at);
      }
      for (const older of gens.filter((o) => o < g && !this.newer.has(o))) await this.folder.remove(this.name(older));
      this.generation = g;
      this.end = at;
      this.baseBytes = payloads[0].length + FRAME_HEAD;
      this.entryBytes = at - this.baseBytes;
      return { generation: g, state, versions, entries, baseBytes: this.baseBytes, entryBytes: this.entryBytes, notes };
    }
    this.generation = undefined;
    return { state: new LogState(), versions: [0], entries: [], baseBytes: 0, entryBytes: 0, notes };
  }

  /**
   * Starts the next generation with `snapshot` as its base (flushed before it resolves). The
   * older files stay until `dropOlder` (a clear keeps them until the store has cleared too).
   */
  async startGeneration(snapshot: Snapshot): Promise<number> {
    const generation = Math.max(this.highest, this.generation ?? 0) + 1;
    const base: LogBase = { kind: 'base', format: LOG_FORMAT, generation, snapshot };
    // A base holds the whole index (22 MB for the sample): encoded in slices, so the worker keeps answering.
    const bytes = frame(await runInSlices(encodeValueInSlices(base), 'recovery log: encoding a base'));
    try {
      await this.folder.write(this.name(generation), 0, bytes, true);
    } catch (e) {
      await this.folder.remove(this.name(generation)).catch(() => undefined);
      throw e;
    }
    this.highest = generation;
    this.generation = generation;
    this.end = this.baseBytes = bytes.length;
    this.entryBytes = 0;
    this.waste.base(snapshot, bytes.length);
    return generation;
  }

  /** Removes every file of a generation below `generation` (after the new one is in use). */
  async dropOlder(generation: number): Promise<void> {
    for (const g of await this.generations()) if (g < generation && !this.newer.has(g)) await this.folder.remove(this.name(g));
  }

  /** Removes `generation`'s file and goes back to the newest one before it (a clear that failed). */
  async abandon(generation: number): Promise<void> {
    await this.folder.remove(this.name(generation));
    await this.read();
  }

  /**
   * Appends `entry` after whatever the file holds now (another tab may have appended, compacted
   * or cleared since: its whole frames are kept, a torn one cut), and resolves once it is
   * flushed. Returns where the entry starts, for `undo`. Must run under the log lock, with a
   * current generation.
   */
  async append(entry: LogEntry): Promise<{ generation: number; at: number }> {
    if (this.generation === undefined) throw new Error('the recovery log has no current file');
    // Encoded before the file is opened: its sync handle locks it for every other tab meanwhile.
    // A change's manifest first: the open reads the index version from the start of the last entry (log-head.ts).
    const bytes = timeStep('recovery log: encoding an entry', () => frame(encodeValue(entry.kind === 'change' ? { kind: 'change', change: manifestFirst(entry.change) } : entry)));
    // Whole frames another tab appended since are kept (a torn one is cut).
    const keep = (since: Uint8Array): number => {
      const { end } = readFrames(since);
      this.end += end;
      this.entryBytes += end;
      return this.end;
    };
    let at = await this.folder.append(this.name(this.generation), this.end, bytes, keep);
    if (at === undefined) {
      // Another tab started a newer generation (a compaction or a clear): append to that.
      await this.read();
      if (this.generation === undefined) throw new Error('the recovery log has no current file');
      at = await this.folder.append(this.name(this.generation), this.end, bytes, keep);
      if (at === undefined) throw new Error('the recovery log has no current file');
    }
    this.end += bytes.length;
    this.entryBytes += bytes.length;
    this.waste.entry(entry, bytes.length);
    return { generation: this.generation, at };
  }

  /** Takes back an entry whose change the store then refused (it was never acknowledged). */
  async undo(mark: { generation: number; at: number }): Promise<void> {
    if (mark.generation !== this.generation) return;
    await this.folder.truncate(this.name(mark.generation), mark.at);
    this.entryBytes -= this.end - mark.at;
    this.end = mark.at;
  }

  /** Removes every file of this database's log (nothing is kept for it from now on). */
  async removeAll(): Promise<void> {
    for (const g of await this.generations()) if (!this.newer.has(g)) await this.folder.remove(this.name(g));
    this.generation = undefined;
  }
}

function manifestFirst({ manifest, ...rest }: Change): Change {
  return { manifest, ...rest };
}

/** A payload's value with typed arrays of their own: they go to IndexedDB, which would clone a view's whole file buffer. */
/**
 * Applies the entries after the base (`payloads[0]`) to `state` up to the first that is not of
 * this format: the entries applied, the index version after each (the base's first), the byte
 * where the fold stopped, and why it stopped early, if it did.
 */
function* foldEntries(payloads: Uint8Array[], state: LogState, waste: LogWaste): Sliced<{ entries: LogEntry[]; versions: number[]; at: number; cut?: string }> {
  const versions = [state.manifest?.version ?? 0];
  const entries: LogEntry[] = [];
  let at = payloads[0].length + FRAME_HEAD;
  for (const p of payloads.slice(1)) {
    yield;
    const entry = safeDecode(p);
    if (!isLogEntry(entry)) return { entries, versions, at, cut: `an entry that is not of format ${LOG_FORMAT} at byte ${at}` };
    state.apply(entry);
    waste.entry(entry, p.length + FRAME_HEAD);
    entries.push(entry);
    versions.push(state.manifest?.version ?? 0);
    at += p.length + FRAME_HEAD;
  }
  return { entries, versions, at };
}

function safeDecode(bytes: Uint8Array): unknown {
  try {
    return decodeValue(bytes, { own: true });
  } catch {
    return undefined;
  }
}
