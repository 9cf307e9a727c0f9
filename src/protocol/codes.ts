/** JSON-RPC and RCP/1 error codes (spec §12). One table, shared by server and client. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  NotInitialized: -32001,
  VersionMismatch: -32002,
  CapabilityMissing: -32003,
  UnknownMethod: -32004,
  OptionUnsupported: -32005,
  Cancelled: -32006,
  BackendUnavailable: -32010,
  RateLimited: -32011,
  Unauthorized: -32012,
  PayloadTooLarge: -32013,
  Timeout: -32014,
  NotFound: -32015,
  Conflict: -32016,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/** §12.2 retry table: true = retryable, false = not, "maybe" = retry once. */
export const RETRYABLE: Readonly<Record<number, boolean | 'maybe'>> = Object.freeze({
  [ErrorCode.RateLimited]: true,
  [ErrorCode.BackendUnavailable]: true,
  [ErrorCode.InternalError]: 'maybe',
  [ErrorCode.NotInitialized]: true,
  [ErrorCode.VersionMismatch]: false,
  [ErrorCode.CapabilityMissing]: false,
  [ErrorCode.UnknownMethod]: false,
  [ErrorCode.OptionUnsupported]: false,
  [ErrorCode.InvalidParams]: false,
  [ErrorCode.Cancelled]: false,
  [ErrorCode.Unauthorized]: false,
  [ErrorCode.PayloadTooLarge]: false,
  [ErrorCode.Timeout]: true,
  [ErrorCode.NotFound]: false,
  [ErrorCode.Conflict]: 'maybe',
  [ErrorCode.ParseError]: false,
  [ErrorCode.InvalidRequest]: false,
  [ErrorCode.MethodNotFound]: false,
});
