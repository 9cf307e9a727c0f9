/**
 * Where the recovery log's files live: the origin's private file system (OPFS), written through
 * synchronous access handles from the engine worker, or memory (tests). A file is opened for
 * each operation and closed after it: a sync access handle locks its file, and another tab's
 * worker appends to the same log between our writes (the cross-tab lock orders them).
 */
import { yieldToEventLoop } from '../../util/abort.ts';
import { timeStep } from '../../util/heartbeat.ts';

/** The log's files: a flat folder of named byte files. */
export interface LogFolder {
  /** Names of the files present. */
  list(): Promise<string[]>;
  /** The file's bytes, or undefined when there is none. */
  read(name: string): Promise<Uint8Array | undefined>;
  /** Runs `fn` with the file's size and a reader of parts of it (one opening of the file); undefined when there is none. */
  scan<T>(name: string, fn: (size: number, read: (at: number, length: number) => Promise<Uint8Array>) => Promise<T>): Promise<T | undefined>;
  /**
   * Writes `bytes` at offset `at`, cuts the file there first, creating it when `create`, and
   * resolves once the bytes are flushed to disk. Rejects with the browser's error (a
   * QuotaExceededError on a full disk; NotFoundError when the file is gone and `create` is false).
   */
  write(name: string, at: number, bytes: Uint8Array, create: boolean): Promise<void>;
  /**
   * Appends with one opening of the file (an append runs on every commit's path): hands `keep` the
   * bytes after `from`, writes `bytes` at the offset it returns (cutting the file there first) and
   * resolves with that offset once flushed; undefined when there is no file. A failed write is cut
   * back to that offset before the error goes up.
   */
  append(name: string, from: number, bytes: Uint8Array, keep: (since: Uint8Array) => number): Promise<number | undefined>;
  /** Bytes the origin may still write, when known (the storage estimate). */
  room?(): Promise<number | undefined>;
  /** Cuts the file to `size` bytes (no-op when it is missing). */
  truncate(name: string, size: number): Promise<void>;
  remove(name: string): Promise<void>;
}

/** A folder in memory: tests, and the fault injections they need. */
export class MemoryLogFolder implements LogFolder {
  readonly files = new Map<string, Uint8Array>();
  /** Bytes a write may still add before it fails with QuotaExceededError (Infinity: no limit). */
  quota = Infinity;

  async list(): Promise<string[]> {
    return [...this.files.keys()];
  }
  async read(name: string): Promise<Uint8Array | undefined> {
    return this.files.get(name)?.slice();
  }
  async scan<T>(name: string, fn: (size: number, read: (at: number, length: number) => Promise<Uint8Array>) => Promise<T>): Promise<T | undefined> {
    const file = this.files.get(name);
    return file && fn(file.length, async (at, length) => file.slice(at, at + length));
  }
  async write(name: string, at: number, bytes: Uint8Array, create: boolean): Promise<void> {
    const old = this.files.get(name);
    if (!old && !create) throw new DOMException(`no file ${name}`, 'NotFoundError');
    const kept = (old ?? new Uint8Array()).subarray(0, at);
    const room = this.quota - this.total() + (old?.length ?? 0) - kept.length;
    const next = new Uint8Array(at + bytes.length);
    next.set(kept);
    if (bytes.length > room) {
      // A full disk: part of the write may have landed, as on a real one.
      next.set(bytes.subarray(0, Math.max(0, room)), at);
      this.files.set(name, next.subarray(0, at + Math.max(0, room)));
      throw new DOMException('the quota was exceeded', 'QuotaExceededError');
    }
    next.set(bytes, at);
    this.files.set(name, next);
  }
  async append(name: string, from: number, bytes: Uint8Array, keep: (since: Uint8Array) => number): Promise<number | undefined> {
    const old = this.files.get(name);
    if (!old) return undefined;
    const at = keep(old.slice(from));
    try {
      await this.write(name, at, bytes, false);
    } catch (e) {
      await this.truncate(name, at);
      throw e;
    }
    return at;
  }
  async room(): Promise<number | undefined> {
    return this.quota === Infinity ? Number.MAX_SAFE_INTEGER : this.quota - this.total();
  }
  async truncate(name: string, size: number): Promise<void> {
    const old = this.files.get(name);
    if (old) this.files.set(name, old.slice(0, size));
  }
  async remove(name: string): Promise<void> {
    this.files.delete(name);
  }
  private total(): number {
    let n = 0;
    for (const f of this.files.values()) n += f.length;
    return n;
  }
}

/** The parts of a sync access handle we use (older WebKit returned promises from them: awaited either way). */
interface SyncHandle {
  getSize(): number | Promise<number>;
  read(buffer: Uint8Array, options: { at: number }): number | Promise<number>;
  write(buffer: Uint8Array, options: { at: number }): number | Promise<number>;
  truncate(size: number): void | Promise<void>;
  flush(): void | Promise<void>;
  close(): void | Promise<void>;
}
type SyncFileHandle = FileSystemFileHandle & { createSyncAccessHandle(): Promise<SyncHandle> };

/** How the recovery log can be kept here: in OPFS through sync access handles, or not at all (and why). */
export type LogSupport = { kind: 'opfs-sync' } | { kind: 'none'; why: string };

/** Whether this context can keep the log (a dedicated worker with OPFS and sync access handles). */
export function logSupport(): LogSupport {
  const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
  if (typeof storage?.getDirectory !== 'function') return { kind: 'none', why: 'no origin private file system (navigator.storage.getDirectory)' };
  const proto = (globalThis as { FileSystemFileHandle?: { prototype: object } }).FileSystemFileHandle?.prototype;
  if (!proto || !('createSyncAccessHandle' in proto)) return { kind: 'none', why: 'no synchronous access handles (FileSystemFileHandle.createSyncAccessHandle)' };
  return { kind: 'opfs-sync' };
}

/**
 * `h` with each call timed for the heartbeat (`timeStep`): a sync access handle blocks the engine
 * worker's thread for the whole read, write or flush (a flush waits for the disk).
 */
function timedHandle(h: SyncHandle): SyncHandle {
  const kb = (b: Uint8Array) => `${Math.round(b.length / 1024)} KB`;
  return {
    getSize: () => h.getSize(),
    read: (buffer, options) => timeStep(`recovery log: reading ${kb(buffer)}`, () => h.read(buffer, options)),
    write: (buffer, options) => timeStep(`recovery log: writing ${kb(buffer)}`, () => h.write(buffer, options)),
    truncate: (size) => timeStep('recovery log: truncating', () => h.truncate(size)),
    flush: () => timeStep('recovery log: flushing to disk', () => h.flush()),
    close: () => h.close(),
  };
}

const BUSY_RETRIES = 20;
/** Bytes per sync read or write of a large file (a sync call holds the thread for its whole length). */
const PIECE_BYTES = 2 << 20;
const delay = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The OPFS root as a log folder. Only in a dedicated worker (see `logSupport`). */
export function opfsLogFolder(): LogFolder {
  const root = () => navigator.storage.getDirectory();
  /** Runs `fn` on the file's sync handle, waiting out another tab's handle on the same file (NoModificationAllowedError). */
  async function withHandle<T>(name: string, create: boolean, fn: (h: SyncHandle) => Promise<T>): Promise<T | undefined> {
    let file: SyncFileHandle;
    try {
      file = (await (await root()).getFileHandle(name, { create })) as SyncFileHandle;
    } catch (e) {
      if ((e as { name?: string }).name === 'NotFoundError' && !create) return undefined;
      throw e;
    }
    for (let attempt = 0; ; attempt++) {
      let handle: SyncHandle;
      try {
        handle = await file.createSyncAccessHandle();
      } catch (e) {
        if ((e as { name?: string }).name !== 'NoModificationAllowedError' || attempt >= BUSY_RETRIES) throw e;
        await delay(10 * (attempt + 1));
        continue;
      }
      try {
        return await fn(timedHandle(handle));
      } finally {
        await handle.close();
      }
    }
  }
  const readFrom = (name: string, from: number) =>
    withHandle(name, false, async (h) => {
      const size = await h.getSize();
      const out = new Uint8Array(Math.max(0, size - from));
      // A piece at a time, as writes: a 35 MB file read at once held the thread 0.56 s under load.
      for (let at = 0; at < out.length; at += PIECE_BYTES) {
        if (at > 0) await yieldToEventLoop();
        await h.read(out.subarray(at, at + PIECE_BYTES), { at: from + at });
      }
      return out;
    });
  return {
    async list() {
      const names: string[] = [];
      for await (const [name] of (await root()) as unknown as AsyncIterable<[string, FileSystemHandle]>) names.push(name);
      return names;
    },
    read: (name) => readFrom(name, 0),
    scan: (name, fn) =>
      withHandle(name, false, async (h) => {
        const size = await h.getSize();
        return fn(size, async (at, length) => {
          const out = new Uint8Array(Math.max(0, Math.min(length, size - at)));
          if (out.length) await h.read(out, { at });
          return out;
        });
      }),
    async write(name, at, bytes, create) {
      const done = await withHandle(name, create, async (h) => {
        await h.truncate(at);
        // A base is the whole index: written a piece at a time, the event loop getting a turn between pieces.
        for (let from = 0; from < bytes.length; from += PIECE_BYTES) {
          if (from > 0) await yieldToEventLoop();
          const piece = bytes.subarray(from, from + PIECE_BYTES);
          const wrote = await h.write(piece, { at: at + from });
          if (wrote !== piece.length) throw new DOMException(`wrote ${from + wrote} of ${bytes.length} bytes`, 'QuotaExceededError');
        }
        await h.flush();
        return true;
      });
      if (!done) throw new DOMException(`no file ${name}`, 'NotFoundError');
    },
    append: (name, from, bytes, keep) =>
      withHandle(name, false, async (h) => {
        const size = await h.getSize();
        const since = new Uint8Array(Math.max(0, size - from));
        if (since.length) await h.read(since, { at: from });
        const at = keep(since);
        try {
          await h.truncate(at);
          const wrote = await h.write(bytes, { at });
          if (wrote !== bytes.length) throw new DOMException(`wrote ${wrote} of ${bytes.length} bytes`, 'QuotaExceededError');
          await h.flush();
        } catch (e) {
          // A partial frame would only be dropped at the next read; cut it now.
          await Promise.resolve(h.truncate(at)).catch(() => undefined);
          throw e;
        }
        return at;
      }),
    async room() {
      const { quota, usage } = await navigator.storage.estimate();
      return quota === undefined || usage === undefined ? undefined : quota - usage;
    },
    async truncate(name, size) {
      await withHandle(name, false, async (h) => {
        await h.truncate(size);
        await h.flush();
      });
    },
    async remove(name) {
      try {
        await (await root()).removeEntry(name);
      } catch (e) {
        if ((e as { name?: string }).name !== 'NotFoundError') throw e;
      }
    },
  };
}
