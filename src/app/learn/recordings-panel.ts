/**
 * "Record and replay": record what the page's sessions send and receive (the inspector's frames)
 * and download it as NDJSON; import a recording and replay one of its sessions against this
 * page's engine (a fresh session) or any RCP server over HTTP, each answer compared with the one
 * recorded. A bearer token typed here is only sent, never part of a recording or an export.
 */
import { HttpWire } from '../../conformance/http-wire.ts';
import { StreamWire } from '../../conformance/stream-wire.ts';
import type { Wire } from '../../conformance/wire.ts';
import type { InitializeResult } from '../../protocol/types.ts';
import { PortTransport } from '../../transport/port-transport.ts';
import { downloadFile, el } from '../dom.ts';
import type { FrameLog } from '../frame-log.ts';
import { connectAllowed, pageConnectSources } from './connect-policy.ts';
import { parseRecording, sessionsOf, toNdjsonRecording, type RecordedFrame, type Recording } from './recording.ts';
import { replay, type ReplayStep } from './replay.ts';
import './learn.css';

export interface RecordingsDeps {
  log: FrameLog;
  server: InitializeResult['server'];
  openPort(): Promise<MessagePort>;
}

const short = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

function stepItem(s: ReplayStep): HTMLLIElement {
  const state = s.notification ? (s.problem ? 'different' : 'same') : s.problem ? 'problem' : s.differences.length ? 'different' : 'same';
  const summary = s.notification ? (s.problem ?? 'not answered, as recorded') : s.problem ?? (s.differences.length ? `${s.differences.length}${s.differences.length >= 20 ? '+' : ''} difference(s)` : 'the same answer');
  const body = el('div', { class: 'conf-body' });
  const details = el(
    'details',
    {
      on: {
        toggle: () => {
          if (!details.open || body.firstChild) return;
          body.append(el('p', {}, 'Sent: ', el('code', {}, s.sent.length > 400 ? `${s.sent.slice(0, 400)}…` : s.sent)));
          if (s.differences.length) body.append(el('table', { class: 'q-table' }, el('thead', {}, el('tr', {}, ...['Where', 'Recorded', 'Replayed'].map((h) => el('th', { attrs: { scope: 'col' } }, h)))), el('tbody', {}, ...s.differences.map((d) => el('tr', {}, el('th', { attrs: { scope: 'row' } }, el('code', {}, d.path)), el('td', {}, el('code', {}, short(d.recorded))), el('td', {}, el('code', {}, short(d.replayed))))))));
          if (s.recorded !== undefined) body.append(el('p', {}, 'Recorded: ', el('code', {}, short(s.recorded))));
          if (s.replayed !== undefined) body.append(el('p', {}, 'Replayed: ', el('code', {}, short(s.replayed))));
        },
      },
    },
    el('summary', {}, el('span', { class: `conf-status replay-${state}` }, state === 'same' ? 'same' : state === 'different' ? 'DIFF' : 'n/a'), ` ${s.label} — ${summary}`),
    body,
  );
  return el('li', { class: `conf-item replay-item-${state}`, attrs: { 'data-state': state } }, details);
}

export function mountRecordings(container: HTMLElement, deps: RecordingsDeps): void {
  let startSeq: number | undefined;
  const record = el('button', { attrs: { type: 'button' } }, 'Start recording');
  const exportAll = el('button', { class: 'small', attrs: { type: 'button' } }, 'Download every frame in the inspector');
  const recState = el('p', { class: 'muted', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Records what the page\'s sessions send and receive (the frames the inspector shows).');
  const file = el('input', { id: 'rec-file', attrs: { type: 'file', accept: '.ndjson,.jsonl,.json,application/x-ndjson' } });
  const loaded = el('p', { attrs: { role: 'status', 'aria-live': 'polite' } });
  const sessionSel = el('select', { id: 'rec-session' });
  const local = el('input', { id: 'rec-local', attrs: { type: 'radio', name: 'rec-target', checked: true } });
  const remote = el('input', { id: 'rec-http', attrs: { type: 'radio', name: 'rec-target' } });
  const url = el('input', { id: 'rec-url', attrs: { type: 'url', placeholder: 'http://127.0.0.1:8787/rcp/session/replay', autocomplete: 'off' } });
  const token = el('input', { id: 'rec-token', attrs: { type: 'password', autocomplete: 'off', placeholder: 'optional' } });
  const go = el('button', { attrs: { type: 'submit', disabled: true } }, 'Replay');
  const status = el('p', { attrs: { role: 'status', 'aria-live': 'polite' } });
  const list = el('ol', { class: 'conf-list', attrs: { 'aria-label': 'Replayed requests' } });
  const form = el(
    'form',
    { class: 'conf-form' },
    el('fieldset', {}, el('legend', {}, 'Replay a recording'), el('label', { attrs: { for: 'rec-file' } }, 'Recording (NDJSON) '), file, loaded, el('label', { attrs: { for: 'rec-session' } }, 'Session to replay '), sessionSel,
      el('div', {}, local, ' ', el('label', { attrs: { for: 'rec-local' } }, "Against this page's engine (a fresh session)")),
      el('div', {}, remote, ' ', el('label', { attrs: { for: 'rec-http' } }, 'Against an RCP server over HTTP')),
      el('div', { class: 'conf-remote' }, el('label', { attrs: { for: 'rec-url' } }, 'Base URL'), url, el('label', { attrs: { for: 'rec-token' } }, 'Bearer token'), token)),
    el('div', { class: 'conf-actions' }, go),
  );
  container.append(el('div', { class: 'conf-actions' }, record, ' ', exportAll), recState, form, status, list);

  // Folded frames' text is read back from the log (frame-log.ts), hence async.
  const framesOf = (from = 0): Promise<RecordedFrame[]> =>
    Promise.all(deps.log.records.filter((r) => r.seq >= from).map(async (r) => ({ t: r.at, dir: r.direction, session: r.session, frame: await deps.log.fullText(r) })));
  const save = (frames: RecordedFrame[]) => downloadFile(`rcp-recording-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`, 'application/x-ndjson', [toNdjsonRecording({ server: deps.server, frames })]);
  record.addEventListener('click', () => {
    if (startSeq === undefined) {
      startSeq = (deps.log.records.at(-1)?.seq ?? 0) + 1;
      record.textContent = 'Stop and download the recording';
      recState.textContent = 'Recording… use the playground, then stop.';
      return;
    }
    const from = startSeq;
    startSeq = undefined;
    record.textContent = 'Start recording';
    void framesOf(from).then((frames) => {
      recState.textContent = frames.length ? `Recorded ${frames.length} frames.` : 'Nothing was sent or received while recording.';
      if (frames.length) save(frames);
    });
  });
  exportAll.addEventListener('click', () => void framesOf().then(save));

  let recording: Recording | undefined;
  file.addEventListener('change', () => {
    void (async () => {
      recording = undefined;
      go.disabled = true;
      sessionSel.replaceChildren();
      const f = file.files?.[0];
      if (!f) return;
      try {
        recording = parseRecording(await f.text());
        const sessions = sessionsOf(recording);
        sessionSel.replaceChildren(...sessions.map((s) => el('option', { attrs: { value: s.session } }, `${s.session} (${s.sent} frames sent)`)));
        const from = recording.server ? ` recorded against ${String(recording.server.name)} ${String(recording.server.version)}` : '';
        loaded.textContent = `${recording.frames.length} frames${from}.`;
        go.disabled = sessions.length === 0;
        if (!sessions.length) loaded.textContent += ' It holds no frame sent by a client: nothing to replay.';
      } catch (e) {
        loaded.textContent = `Not a recording: ${e instanceof Error ? e.message : String(e)}`;
      }
    })();
  });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void (async () => {
      if (!recording) return;
      let wire: Wire;
      if (local.checked) wire = new StreamWire({ transport: new PortTransport(await deps.openPort()), kind: 'port', label: "this page's engine" });
      else {
        const u = url.value.trim();
        if (!/^https?:\/\/.+/.test(u)) return void (status.textContent = 'Enter the base URL of an RCP server over HTTP.');
        if (!connectAllowed(u, pageConnectSources(), location.origin)) return void (status.textContent = `This build's Content-Security-Policy does not let the page reach ${new URL(u).origin}.`);
        wire = new HttpWire(u, { token: token.value || undefined, unreachableHint: `is it running, and does it allow the origin ${location.origin} (CORS)?` });
      }
      go.disabled = true;
      list.replaceChildren();
      status.textContent = `Replaying on ${wire.label}…`;
      try {
        const steps = await replay(recording, sessionSel.value, wire, { onStep: (s) => list.append(stepItem(s)) });
        const diff = steps.filter((s) => s.differences.length || (s.notification && s.problem)).length;
        status.textContent = `Replayed ${steps.length} frames: ${steps.length - diff} answered as recorded, ${diff} differently.`;
      } catch (e) {
        status.textContent = `The replay stopped: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        go.disabled = false;
      }
    })();
  });
}
