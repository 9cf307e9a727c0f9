/**
 * Learn RCP's tools — the console, the schema forms, conformance, quality (with the peer engines
 * it compares against: Orama, MiniSearch), recordings and the tour — mounted when that area is
 * first shown, from a chunk of their own. Imported statically they were ~60% of the page's main
 * script (220 of 365 KB minified), all evaluated on first open for an area that is hidden, which
 * Lighthouse counts as blocking time (docs/playground.md).
 */
import type { InPageEngine } from '../../client/in-page-engine.ts';
import type { InitializeResult } from '../../protocol/types.ts';
import { byId } from '../dom.ts';
import type { FrameLog } from '../frame-log.ts';
import { mountMethodForms } from '../method-forms.ts';
import { mountConsole } from '../rpc-console.ts';
import { mountConformance } from './conformance-panel.ts';
import { freshEngine } from './fresh-engine.ts';
import { lessonFederation } from './lesson-federation.ts';
import { mountQuality } from './quality-panel.ts';
import { mountRecordings } from './recordings-panel.ts';
import { mountTour } from './tour.ts';

export interface LearnAreaDeps {
  client: InPageEngine;
  init: InitializeResult;
  log: FrameLog;
  /** The index changed (a lesson or a conformance run wrote to it). */
  changed: () => void;
}

export function mountLearnArea({ client, init, log, changed }: LearnAreaDeps): void {
  const openPort = () => client.control.connect();
  const rcpConsole = mountConsole(openPort, init, log);
  void mountMethodForms(init, (text) => rcpConsole.send(text));
  mountConformance(byId('conformance'), { openPort, changed });
  mountQuality(byId('quality'), { fresh: freshEngine });
  mountRecordings(byId('recordings'), { log, server: init.server, openPort });
  mountTour(byId('tour'), { openPort, capabilities: init.capabilities, federate: lessonFederation(client), onFrame: (d, f) => log.add(d, f, 'tour'), changed });
}
