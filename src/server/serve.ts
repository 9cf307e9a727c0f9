import type { Transport } from '../transport/transport.ts';
import type { Backend } from './backend.ts';
import type { Deadlines } from './deadlines.ts';
import { RcpSession } from './rcp-session.ts';

/** Binds a fresh, uninitialized RCP session to a transport. One transport = one session. */
export function serve(transport: Transport, backend: Backend, deadlines?: Partial<Deadlines>): RcpSession {
  const session = new RcpSession({
    backend,
    deadlines,
    send: (frame) => transport.send(frame),
    onShutdown: () => transport.close(),
  });
  transport.onmessage = (frame) => void session.receive(frame);
  transport.onclose = () => session.close();
  transport.start();
  return session;
}
