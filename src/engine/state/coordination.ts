/**
 * Coordination between engines sharing one persistent store (several tabs, each with its own
 * worker and engine over the same IndexedDB database): an exclusive lock that serialises their
 * writes, and a broadcast of committed index versions so readers know when to reload.
 *
 * In browsers: Web Locks (`navigator.locks`) and `BroadcastChannel`. Node has neither; there an
 * engine runs without coordination (it is the only writer), or tests give several engines one
 * in-process hub.
 */

/** What the engine needs to share a store with other engines. */
export interface Coordination {
  /**
   * Runs `fn` while holding the exclusive lock `name`, shared by every engine of this origin.
   * Must release the lock when `fn` settles, and must not run `fn` once `signal` aborted while waiting.
   */
  withLock<T>(name: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tells the other engines that `version` committed (never echoed back to this one). */
  announce(version: number): void;
  /** Calls `listener` with each version another engine announces; returns an unsubscribe function. */
  subscribe(listener: (version: number) => void): () => void;
}

/** Lock names the engine takes (prefixed with the coordination name). */
export const LOCKS = Object.freeze({ write: 'write', reembed: 'reembed' });

/** The wire message on the broadcast channel. */
export interface CommittedMessage {
  type: 'committed';
  version: number;
}

const isCommitted = (d: unknown): d is CommittedMessage =>
  typeof d === 'object' && d !== null && (d as CommittedMessage).type === 'committed' && Number.isSafeInteger((d as CommittedMessage).version);

/**
 * Browser coordination: lock `<name>-<lock>` through `navigator.locks`, messages on
 * `BroadcastChannel(name)`. Undefined when neither API exists (Node). Without Web Locks, writes
 * from different tabs are not serialised; every browser the app targets has them.
 */
export function browserCoordination(name = 'rcp-engine'): Coordination | undefined {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : undefined;
  if (!locks && !channel) return undefined;
  const listeners = new Set<(version: number) => void>();
  channel?.addEventListener('message', (e: MessageEvent) => {
    if (isCommitted(e.data)) for (const l of listeners) l(e.data.version);
  });
  return {
    withLock: <T>(lock: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> =>
      locks ? (locks.request(`${name}-${lock}`, signal ? { signal } : {}, fn) as Promise<T>) : fn(),
    announce: (version) => channel?.postMessage({ type: 'committed', version } satisfies CommittedMessage),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** A hub's member factory; `delivered()` settles once every announcement made so far has reached its listeners. */
export type CoordinationHub = (() => Coordination) & { delivered(): Promise<void> };

/**
 * An in-process hub with the browser semantics (FIFO locks, asynchronous delivery to every member
 * but the sender), for several engines in one process: tests and Node tools. Each call of the
 * returned function makes one member.
 */
export function createCoordinationHub(): CoordinationHub {
  const tails = new Map<string, Promise<unknown>>();
  const members = new Set<Set<(version: number) => void>>();
  let inFlight = 0;
  const idle: (() => void)[] = [];
  const deliver = (member: Set<(version: number) => void>, version: number): void => {
    const listeners = [...member]; // those subscribed when it was announced
    inFlight++;
    setTimeout(() => {
      for (const l of listeners) l(version);
      if (--inFlight === 0) idle.splice(0).forEach((ok) => ok());
    }, 0);
  };
  const member = (): Coordination => {
    const mine = new Set<(version: number) => void>();
    members.add(mine);
    return {
      withLock<T>(lock: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
        const run = (tails.get(lock) ?? Promise.resolve()).then(() => {
          if (signal?.aborted) throw signal.reason;
          return fn();
        });
        tails.set(lock, run.catch(() => undefined));
        return run;
      },
      announce(version) {
        for (const m of members) if (m !== mine) deliver(m, version);
      },
      subscribe(listener) {
        mine.add(listener);
        return () => void mine.delete(listener);
      },
    };
  };
  return Object.assign(member, {
    delivered: (): Promise<void> => (inFlight === 0 ? Promise.resolve() : new Promise<void>((ok) => idle.push(ok))),
  });
}
