/**
 * The smallest thing that moves RCP frames (after the MCP SDK's Transport): a frame is the exact
 * JSON text the stdio transport would write, without its newline. Transports never parse frames.
 */
export interface Transport {
  /** Begins delivering frames to `onmessage`. */
  start(): void;
  send(frame: string): void;
  close(): void;
  onmessage?: (frame: string) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}
