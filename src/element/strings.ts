/**
 * The words `<rcp-search>` shows, in the languages of the multilingual sample (the UDHR's twelve:
 * en de fr es ru el ar hi th zh ja ko) and Hebrew, picked by the element's `lang` (its own or its
 * nearest ancestor's). English is in the element's file; each other language is a chunk of its own
 * (≈ 0.4 KB gzipped), fetched only by a page in that language. A site replaces any string with
 * the `strings` property or attribute (JSON); what it leaves out comes from the built-in table.
 * `{name}` in a string is filled in; a count's string may be one per plural category
 * (Intl.PluralRules), `other` required.
 */
import en from './i18n/en.ts';
import type { Plural, SearchStrings } from './i18n/types.ts';

export type { Plural, SearchStrings } from './i18n/types.ts';
export { en as ENGLISH };

type Table = { default: SearchStrings };
/** The built-in languages other than English, by primary subtag (explicit imports: one chunk each). */
const LOADERS: Readonly<Record<string, () => Promise<Table>>> = {
  de: () => import('./i18n/de.ts'),
  fr: () => import('./i18n/fr.ts'),
  es: () => import('./i18n/es.ts'),
  ru: () => import('./i18n/ru.ts'),
  el: () => import('./i18n/el.ts'),
  ar: () => import('./i18n/ar.ts'),
  he: () => import('./i18n/he.ts'),
  hi: () => import('./i18n/hi.ts'),
  th: () => import('./i18n/th.ts'),
  zh: () => import('./i18n/zh.ts'),
  ja: () => import('./i18n/ja.ts'),
  ko: () => import('./i18n/ko.ts'),
};

/** The languages with built-in strings. */
export const BUILT_IN_LANGUAGES: readonly string[] = Object.freeze(['en', ...Object.keys(LOADERS)]);

const primary = (lang: string): string => lang.trim().toLowerCase().split(/[-_]/)[0] ?? '';

const loaded = new Map<string, SearchStrings>([['en', en]]);

/** The built-in strings of `lang`, if already loaded (English always is); undefined while they are not. */
export function builtInNow(lang: string | null | undefined): SearchStrings | undefined {
  const p = primary(lang ?? '');
  return LOADERS[p] ? loaded.get(p) : en;
}

/** The built-in strings of `lang` (English where the language has none built in, or its chunk fails to load). */
export async function builtIn(lang: string | null | undefined): Promise<SearchStrings> {
  const p = primary(lang ?? '');
  const load = LOADERS[p];
  if (!load) return en;
  let s = loaded.get(p);
  if (!s) {
    s = await load().then((m) => m.default, () => en);
    if (s !== en) loaded.set(p, s);
  }
  return s;
}

/** Languages written right to left (primary subtags), and scripts that are. */
const RTL_LANGUAGES = new Set(['ar', 'he', 'iw', 'fa', 'ur', 'ps', 'sd', 'ug', 'yi', 'dv', 'ckb', 'syr']);
const RTL_SCRIPTS = new Set(['arab', 'hebr', 'thaa', 'syrc', 'nkoo', 'adlm', 'rohg']);

/** `rtl` or `ltr` for a BCP 47 tag (a script subtag wins: `az-Arab` is rtl, `ku-Latn` ltr), undefined for none. */
export function directionOf(lang: string | null | undefined): 'rtl' | 'ltr' | undefined {
  if (!lang?.trim()) return undefined;
  const script = lang.toLowerCase().split(/[-_]/).slice(1).find((s) => s.length === 4);
  if (script) return RTL_SCRIPTS.has(script) ? 'rtl' : 'ltr';
  return RTL_LANGUAGES.has(primary(lang)) ? 'rtl' : 'ltr';
}

const KEYS = Object.keys(en) as (keyof SearchStrings)[];

function isPlural(v: unknown): v is Plural {
  if (typeof v === 'string') return true;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o.other === 'string' && Object.values(o).every((x) => typeof x === 'string');
}

/**
 * `base` (a language's built-in strings) with `overrides` on top. Overrides of an unknown key, or
 * of the wrong shape (not a string; for a count, not a string or an object of strings with
 * `other`), are left out and named in `ignored`.
 */
export function resolveStrings(base: SearchStrings, overrides?: unknown): { strings: SearchStrings; ignored: string[] } {
  const strings: SearchStrings = { ...base };
  const ignored: string[] = [];
  if (overrides && typeof overrides === 'object' && !Array.isArray(overrides)) {
    for (const [key, value] of Object.entries(overrides)) {
      const k = key as keyof SearchStrings;
      const plural = k === 'result' || k === 'page' || k === 'sections';
      if (!KEYS.includes(k) || !(plural ? isPlural(value) : typeof value === 'string')) ignored.push(key);
      else (strings as unknown as Record<string, Plural>)[k] = value as Plural;
    }
  } else if (overrides !== undefined && overrides !== null) ignored.push('(not an object)');
  return { strings, ignored };
}

/** Fills `{name}` placeholders (an unknown name is left as written). */
export function fill(template: string, vars: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** The string of `p` for count `n` in `lang`, with `{n}` filled in (as `lang` writes numbers). */
export function count(p: Plural, n: number, lang: string): string {
  const locale = safeLocale(lang);
  let template: string;
  if (typeof p === 'string') template = p;
  else {
    const rule = new Intl.PluralRules(locale).select(n);
    template = p[rule] ?? p.other;
  }
  return fill(template, { n: new Intl.NumberFormat(locale).format(n) });
}

/** The active filters as `field: value`, in a list as `lang` writes one. */
export function filterList(filters: Iterable<[string, string]>, lang: string): string {
  const parts = [...filters].map(([f, v]) => `${f}: ${v}`);
  return new Intl.ListFormat(safeLocale(lang), { type: 'conjunction' }).format(parts);
}

/** `lang` if Intl takes it, else English (a malformed `lang` attribute must not break the element). */
function safeLocale(lang: string): string {
  try {
    return Intl.getCanonicalLocales(lang || 'en')[0] ?? 'en';
  } catch {
    return 'en';
  }
}
