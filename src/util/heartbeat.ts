/**
 * The engine worker's heartbeat: a beat every BEAT_MS on a MessagePort of its own (never the
 * control plane's comlink channel, never an RCP session), so the page can tell a worker that is
 * only busy from one that is gone. A busy worker's beats come late (each says how late: the
 * longest its event loop was held since the last one) but they come; a worker that crashed or was
 * killed for memory sends none ever again.
 *
 * Each beat also carries the synchronous steps the worker timed since the previous one that held
 * its thread for STEP_REPORT_MS or more (`timeStep`): what it was busy with, measured where it ran.
 */

/** How often the worker beats. */
export const BEAT_MS = 250;
/** A timed step that held the thread at least this long is reported with the next beat. */
export const STEP_REPORT_MS = 50;

/** One beat, worker → page. */
export interface Beat {
  type: 'beat';
  seq: number;
  /** How much later than due this beat's timer ran: how long the thread was held. */
  lagMs: number;
  /** Timed steps since the last beat that held the thread ≥ STEP_REPORT_MS: [label, ms]. */
  steps: [string, number][];
}

let pendingSteps: [string, number][] = [];

/** Runs `fn` (synchronous work on this thread), timing it; a long one goes out with the next beat. */
export function timeStep<T>(label: string, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    noteStep(label, performance.now() - t0);
  }
}

/** Records a step's duration measured by the caller. */
export function noteStep(label: string, ms: number): void {
  if (ms >= STEP_REPORT_MS && pendingSteps.length < 64) pendingSteps.push([label, Math.round(ms)]);
}

const ports = new Set<MessagePort>();
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * Beats on `port` from now on (the worker's side; every subscriber gets every beat). Returns a
 * function that stops beating there.
 */
export function startBeats(port: MessagePort, every = BEAT_MS): () => void {
  ports.add(port);
  if (!timer) {
    let seq = 0;
    let due = performance.now() + every;
    timer = setInterval(() => {
      const now = performance.now();
      const beat: Beat = { type: 'beat', seq: seq++, lagMs: Math.max(0, Math.round(now - due)), steps: pendingSteps };
      pendingSteps = [];
      due = now + every;
      for (const p of ports) p.postMessage(beat);
    }, every);
  }
  return () => {
    ports.delete(port);
    port.close();
    if (ports.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
