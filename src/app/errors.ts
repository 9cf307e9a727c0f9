/**
 * Errors in plain words, with the RCP code and data one click away (a `<details>` element).
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import { el } from './dom.ts';

const PLAIN: Readonly<Record<number, string>> = Object.freeze({
  [ErrorCode.ParseError]: 'That was not valid JSON.',
  [ErrorCode.InvalidRequest]: 'That is not a valid JSON-RPC request.',
  [ErrorCode.MethodNotFound]: 'The engine does not know that method.',
  [ErrorCode.InvalidParams]: 'Something in the request is not allowed — check the highlighted setting or filter.',
  [ErrorCode.InternalError]: 'The engine hit an internal problem. Try again.',
  [ErrorCode.NotInitialized]: 'The engine is still starting. Try again in a moment.',
  [ErrorCode.CapabilityMissing]: 'This engine does not offer that feature.',
  [ErrorCode.UnknownMethod]: 'The engine does not know that method.',
  [ErrorCode.OptionUnsupported]: 'This engine does not support one of the chosen options.',
  [ErrorCode.Cancelled]: 'Cancelled.',
  [ErrorCode.BackendUnavailable]: 'The index is not available right now (storage may be full or blocked).',
  [ErrorCode.PayloadTooLarge]: 'That is too large for the engine to take in one go.',
  [ErrorCode.Timeout]: 'The engine took too long to answer.',
  [ErrorCode.NotFound]: 'That document is no longer in the index.',
  [ErrorCode.Conflict]: 'Someone else changed the index at the same time. Try again.',
});

/** A sentence for people about any thrown value. */
export function plainMessage(e: unknown): string {
  if (e instanceof RcpError) return PLAIN[e.code] ?? e.rawMessage;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** An element saying what went wrong in plain words, with the technical details on demand. */
export function errorView(e: unknown, context?: string): HTMLElement {
  const summary = `${context ? `${context}: ` : ''}${plainMessage(e)}`;
  const technical =
    e instanceof RcpError
      ? `RCP error ${e.code}: ${e.rawMessage}${e.data !== undefined ? `\n${JSON.stringify(e.data, null, 2)}` : ''}`
      : e instanceof Error
        ? `${e.name}: ${e.message}`
        : String(e);
  return el(
    'div',
    { class: 'error', attrs: { role: 'alert' } },
    el('p', {}, summary),
    el('details', {}, el('summary', {}, e instanceof RcpError ? `Details (RCP code ${e.code})` : 'Details'), el('pre', { class: 'error-detail' }, technical)),
  );
}
