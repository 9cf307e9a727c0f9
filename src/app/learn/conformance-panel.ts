/**
 * "Check an RCP server": the conformance checker (src/conformance) in the page, against this
 * page's engine (a fresh session of its worker) or any RCP server over HTTP that this build's
 * Content-Security-Policy lets it reach (loopback, plus origins allowed at build time) and that
 * allows this page's origin (CORS). Each check shows its verdict, the sentence of the spec it
 * checks (linked to the section), and the frames that decided it; the report downloads as the
 * same JSON the CLI prints. A bearer token typed here is only sent, never stored or exported.
 */
import { HttpWire } from '../../conformance/http-wire.ts';
import { toJsonReport, counts } from '../../conformance/report.ts';
import { CHECKS, runConformance } from '../../conformance/run.ts';
import { StreamWire } from '../../conformance/stream-wire.ts';
import type { CheckResult, Report } from '../../conformance/types.ts';
import type { Wire } from '../../conformance/wire.ts';
import { PortTransport } from '../../transport/port-transport.ts';
import { downloadFile, el } from '../dom.ts';
import { connectAllowed, pageConnectSources } from './connect-policy.ts';
import { specLink } from './spec-view.ts';
import './learn.css';

export interface ConformanceDeps {
  /** A fresh session port of the page's engine worker. */
  openPort(): Promise<MessagePort>;
  /** The page's own index changed (the write checks add and delete probe documents). */
  changed?(): void;
}

const MARK = { pass: 'PASS', fail: 'FAIL', skip: 'skip' } as const;

function frameList(r: CheckResult): HTMLElement {
  if (!r.frames.length) return el('p', { class: 'muted' }, 'No frames: judged from what the run had seen.');
  return el(
    'ol',
    { class: 'conf-frames', attrs: { 'aria-label': `Frames behind ${r.id}` } },
    ...r.frames.map((f) => el('li', { class: `conf-${f.dir}` }, el('span', { class: 'conf-dir', attrs: { 'aria-label': f.dir === 'out' ? 'sent' : f.dir === 'in' ? 'received' : 'note' } }, f.dir === 'out' ? '→' : f.dir === 'in' ? '←' : '·'), ' ', el('code', {}, f.text))),
  );
}

function resultItem(r: CheckResult): HTMLLIElement {
  const body = el('div', { class: 'conf-body' });
  const details = el(
    'details',
    { on: { toggle: () => details.open && !body.firstChild && body.append(el('blockquote', {}, r.sentence), el('p', {}, 'Section ', specLink(r.section), r.should ? ' (a SHOULD: reported, not counted for certification)' : ''), frameList(r)) } },
    el('summary', {}, el('span', { class: `conf-status conf-${r.status}` }, MARK[r.status]), ` [${r.level}] `, el('code', {}, r.id), r.detail ? ` — ${r.detail}` : ''),
    body,
  );
  return el('li', { class: `conf-item conf-item-${r.status}`, attrs: { 'data-check': r.id, 'data-status': r.status } }, details);
}

export function mountConformance(container: HTMLElement, deps: ConformanceDeps): void {
  const local = el('input', { attrs: { type: 'radio', name: 'conf-target', value: 'local', checked: true, id: 'conf-local' } });
  const remote = el('input', { attrs: { type: 'radio', name: 'conf-target', value: 'http', id: 'conf-http' } });
  const url = el('input', { id: 'conf-url', attrs: { type: 'url', placeholder: 'http://127.0.0.1:8787/rcp/session/check', autocomplete: 'off', spellcheck: 'false' } });
  const token = el('input', { id: 'conf-token', attrs: { type: 'password', autocomplete: 'off', placeholder: 'optional' } });
  const write = el('input', { id: 'conf-write', attrs: { type: 'checkbox', checked: true } });
  const runBtn = el('button', { attrs: { type: 'submit' } }, 'Run the checks');
  const cancel = el('button', { attrs: { type: 'button' }, class: 'small' }, 'Cancel');
  cancel.hidden = true;
  const bar = el('progress', { attrs: { max: CHECKS.length + 1, value: 0, 'aria-label': 'Checks run' } });
  bar.hidden = true;
  const status = el('p', { attrs: { role: 'status', 'aria-live': 'polite' } });
  const summary = el('div', { class: 'conf-summary' });
  const show = el('select', { id: 'conf-show' }, ...['all', 'fail', 'skip', 'pass'].map((v) => el('option', { attrs: { value: v } }, v === 'all' ? 'every check' : v === 'fail' ? 'failed' : v === 'skip' ? 'skipped' : 'passed')));
  const save = el('button', { attrs: { type: 'button' }, class: 'small' }, 'Download the report (JSON)');
  const tools = el('div', { class: 'conf-tools' }, el('label', {}, 'Show ', show), ' ', save);
  tools.hidden = true;
  const list = el('ol', { class: 'conf-list', attrs: { 'aria-label': 'Conformance checks' } });

  const form = el(
    'form',
    { class: 'conf-form' },
    el(
      'fieldset',
      {},
      el('legend', {}, 'Server to check'),
      el('div', {}, local, ' ', el('label', { attrs: { for: 'conf-local' } }, "This page's engine (a fresh session of its worker)")),
      el('div', {}, remote, ' ', el('label', { attrs: { for: 'conf-http' } }, 'An RCP server over HTTP')),
      el('div', { class: 'conf-remote' }, el('label', { attrs: { for: 'conf-url' } }, 'Base URL'), url, el('label', { attrs: { for: 'conf-token' } }, 'Bearer token'), token),
      el('p', { class: 'muted' }, 'The page may reach loopback addresses (and origins allowed when it was built), and the server must allow this origin (CORS): our bridge with ', el('code', {}, `--allow-origin ${location.origin}`), '. A stateless base answers every request as initialized; point the checker at a session base (ours: ', el('code', {}, '<base>/session/<name>'), ') to check the §13 lifecycle too. The token is sent with each request and never stored or exported.'),
    ),
    el('div', {}, write, ' ', el('label', { attrs: { for: 'conf-write' } }, 'Include the write checks: 4 probe documents (ids ', el('code', {}, 'rcp-conformance-probe:…'), ') are added, re-added and deleted')),
    el('div', { class: 'conf-actions' }, runBtn, ' ', cancel),
  );
  container.append(form, bar, status, summary, tools, list);

  let report: Report | undefined;
  let abort: AbortController | undefined;
  const refilter = () => {
    for (const li of list.querySelectorAll<HTMLLIElement>('li.conf-item')) li.hidden = show.value !== 'all' && li.dataset.status !== show.value;
  };
  show.addEventListener('change', refilter);
  save.addEventListener('click', () => report && downloadFile('rcp-conformance.json', 'application/json', [`${JSON.stringify(toJsonReport(report), null, 2)}\n`]));
  cancel.addEventListener('click', () => abort?.abort());

  const wireFor = async (): Promise<Wire | string> => {
    if (local.checked) {
      const t = new PortTransport(await deps.openPort());
      return new StreamWire({ transport: t, kind: 'port', label: "this page's engine" });
    }
    const u = url.value.trim();
    if (!/^https?:\/\/.+/.test(u)) return 'Enter the base URL of an RCP server over HTTP, e.g. http://127.0.0.1:8787/rcp/session/check';
    if (!connectAllowed(u, pageConnectSources(), location.origin)) return `This build's Content-Security-Policy does not let the page reach ${new URL(u).origin}: loopback addresses are allowed, others only when listed in RCP_REMOTE_ENGINES at build time.`;
    return new HttpWire(u, { token: token.value || undefined, unreachableHint: `is it running, and does it allow the origin ${location.origin} (CORS)?` });
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void (async () => {
      const wire = await wireFor();
      if (typeof wire === 'string') {
        status.textContent = wire;
        return;
      }
      abort = new AbortController();
      runBtn.disabled = true;
      cancel.hidden = false;
      bar.hidden = false;
      bar.value = 0;
      list.replaceChildren();
      summary.replaceChildren();
      tools.hidden = true;
      status.textContent = `Checking ${wire.label}…`;
      try {
        report = await runConformance(wire, {
          write: write.checked,
          signal: abort.signal,
          onResult: (r, done) => {
            bar.value = done;
            status.textContent = `${done} of ${CHECKS.length + 1} checks: ${r.id}`;
            const li = resultItem(r);
            list.append(li);
            li.hidden = show.value !== 'all' && r.status !== show.value;
          },
        });
        const n = counts(report);
        status.textContent = abort.signal.aborted ? 'Cancelled.' : `Done in ${(report.ms / 1000).toFixed(1)} s.`;
        summary.replaceChildren(
          el('p', { class: 'conf-level' }, 'Certified level: ', el('strong', { attrs: { 'data-level': report.certifiedLevel ?? 'none' } }, report.certifiedLevel ?? 'none'), report.declaredLevel ? ` (declared ${report.declaredLevel})` : ' (no level declared)', ` — ${n.pass} passed, ${n.fail} failed, ${n.skip} skipped. `, specLink('14.5', 'How a level is certified')),
        );
        tools.hidden = false;
      } catch (e) {
        status.textContent = `The check run stopped: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        runBtn.disabled = false;
        cancel.hidden = true;
        if (local.checked) deps.changed?.();
      }
    })();
  });
}
