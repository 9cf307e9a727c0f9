/**
 * Light and dark themes: by default the page follows `prefers-color-scheme` (style.css); the
 * toggle cycles auto → light → dark and the choice is kept in this browser (`data-theme` on <html>).
 */
import { byId } from './dom.ts';

export type ThemeChoice = 'auto' | 'light' | 'dark';
const KEY = 'rcp-playground:theme';
const ORDER: readonly ThemeChoice[] = ['auto', 'light', 'dark'];
const WORDS: Readonly<Record<ThemeChoice, string>> = { auto: 'follows the system', light: 'light', dark: 'dark' };

const stored = (): ThemeChoice => {
  const v = localStorage.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'auto';
};

function apply(choice: ThemeChoice): void {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** Applies the stored choice at once (call before the first paint) and wires the toggle. */
export function mountTheme(): void {
  let choice = stored();
  apply(choice);
  const button = byId<HTMLButtonElement>('theme-toggle');
  const label = () => {
    button.textContent = `Theme: ${choice}`;
    button.title = `Colour theme: ${WORDS[choice]}. Click to change.`;
  };
  label();
  button.addEventListener('click', () => {
    choice = ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length];
    if (choice === 'auto') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
    apply(choice);
    label();
  });
}
