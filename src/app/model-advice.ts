/**
 * Which built-in dense model suits the languages of the index, told below the search results: the
 * languages of its documents (`meta.lang`, detected at add when absent) against the model in use.
 * The reasons are the measured ones (docs/multilingual.md): an English model maps other languages
 * to noise, so their documents are found by their words alone and a query never finds a passage
 * written in another language (tatoeba, default mode, mean MRR@10 0.084 on MiniLM against 0.926 on
 * multilingual-e5-small); on English-only collections the English model ranks better and embeds
 * faster. Advice, never a switch: the person chooses (switching re-embeds the whole index), and
 * "Not now" is remembered per pair of models in this browser. It counts the person's documents:
 * the worker leaves the built-in sample out (its languages are ours to know, and the default was
 * chosen with them in view), so the sample's first open never argues with the model in use.
 */
import type { AvailableModel, ControlApi, CorpusLanguages } from '../protocol/control.ts';
import { el } from './dom.ts';
import { count } from './format.ts';

/** Fewest documents with a known language before any advice. */
export const MIN_KNOWN = 10;
/** A cross-lingual model is suggested once this share of those documents is not English. */
export const OTHER_LANGUAGES_SHARE = 0.1;
/** An English model is suggested over a cross-lingual one once this share of them is English. */
export const ENGLISH_SHARE = 0.98;

export interface ModelAdvice {
  /** The model in use and the one suggested (folder names). */
  from: string;
  to: string;
  /** Why, in a sentence or two. */
  text: string;
}

/** The advice for this index, or undefined when the model in use suits its languages. */
export function modelAdvice(current: string | undefined, available: readonly AvailableModel[], langs: CorpusLanguages | undefined, names = languageNames()): ModelAdvice | undefined {
  const model = available.find((m) => m.name === current);
  if (!model || !langs) return undefined;
  const byCount = Object.entries(langs.counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const known = byCount.reduce((n, [, c]) => n + c, 0);
  if (known < MIN_KNOWN) return undefined;
  const english = langs.counts.en ?? 0;
  if (!model.crossLingual) {
    const to = available.find((m) => m.crossLingual);
    const others = known - english;
    if (!to || others < OTHER_LANGUAGES_SHARE * known) return undefined;
    const listed = byCount.filter(([l]) => l !== 'en');
    const shown = listed.slice(0, 4).map(([l, c]) => `${names(l)} ${count(c)}`).join(', ') + (listed.length > 4 ? `, and ${listed.length - 4} more ${listed.length === 5 ? 'language' : 'languages'}` : '');
    return {
      from: model.name,
      to: to.name,
      text:
        `${count(others)} of your ${count(known)} documents are not in English (${shown}). ${model.name} compares meanings in English only: ` +
        `those are found by their words alone, and a query in one language does not find a passage written in another. ${to.name} ` +
        `(${to.languages ?? 'about 100 languages'}) does.`,
    };
  }
  if (english < ENGLISH_SHARE * known) return undefined;
  const better = available
    .filter((m) => !m.crossLingual && m.quality && model.quality && m.quality.hybrid > model.quality.hybrid)
    .sort((a, b) => b.quality!.hybrid - a.quality!.hybrid)[0];
  if (!better) return undefined;
  return {
    from: model.name,
    to: better.name,
    text:
      `${english === known ? 'All' : count(english) + ' of'} your ${count(known)} documents are in English. On English collections ${better.name} ranks better ` +
      `(hybrid nDCG@10 ${better.quality!.hybrid.toFixed(3)} against ${model.quality!.hybrid.toFixed(3)} on the development sets); ${model.name} is for documents or queries in other languages.`,
  };
}

/** English names of language tags ("de" → "German"), the tag itself where the browser has none. */
function languageNames(): (tag: string) => string {
  let names: Intl.DisplayNames | undefined;
  return (tag) => {
    try {
      names ??= new Intl.DisplayNames(['en'], { type: 'language' });
      return names.of(tag) ?? tag;
    } catch {
      return tag; // not a well-formed tag
    }
  };
}

const DISMISSED_KEY = 'rcp-playground:model-advice-dismissed';

const dismissedPairs = (): string[] => {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(DISMISSED_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

export interface ModelAdviceView {
  /** Re-reads the index's languages (call when the index changed). */
  refresh(): Promise<void>;
}

/**
 * The advice in `host` (hidden while there is none; placed after the results, so that its arrival
 * shifts nothing above it):
 * the sentence, a button that switches (stores the choice and reloads, as the model picker does)
 * and "Not now".
 */
export function mountModelAdvice(host: HTMLElement, control: Pick<ControlApi, 'models' | 'languages' | 'chooseModel'>, compare: () => void): ModelAdviceView {
  host.hidden = true;
  const draw = (advice: ModelAdvice | undefined) => {
    if (!advice || dismissedPairs().includes(`${advice.from}>${advice.to}`)) {
      host.hidden = true;
      host.replaceChildren();
      return;
    }
    const use = el('button', {
      class: 'small primary',
      attrs: { type: 'button' },
      on: {
        click: async () => {
          use.disabled = true;
          await control.chooseModel(advice.to);
          location.reload();
        },
      },
    }, `Use ${advice.to}`);
    const later = el('button', {
      class: 'small',
      attrs: { type: 'button' },
      on: {
        click: () => {
          localStorage.setItem(DISMISSED_KEY, JSON.stringify([...dismissedPairs(), `${advice.from}>${advice.to}`]));
          draw(undefined);
        },
      },
    }, 'Not now');
    const more = el('button', { class: 'linklike', attrs: { type: 'button' }, on: { click: compare } }, 'compare the models');
    host.replaceChildren(el('p', {}, advice.text, ' Switching re-embeds the index in the background; keyword search works meanwhile (', more, '). ', use, ' ', later));
    host.hidden = false;
  };
  return {
    async refresh() {
      const { current, available } = await control.models();
      draw(modelAdvice(current, available, await control.languages()));
    },
  };
}
