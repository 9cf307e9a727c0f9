import { backendUnavailable, type RcpError } from '../protocol/errors.ts';

/**
 * Waits for the engine; if its storage could not be opened, every call fails with the mapped
 * storage error or -32010 (the capability stays advertised, §13.2).
 */
export function engineReady<E>(engine: Promise<E>, mapError?: (e: unknown) => RcpError | undefined): () => Promise<E> {
  return async () => {
    try {
      return await engine;
    } catch (e) {
      throw mapError?.(e) ?? backendUnavailable(`index storage could not be opened: ${(e as Error).message}`);
    }
  };
}
