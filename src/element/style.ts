/**
 * The shadow styles of `<rcp-search>`. Everything a site may want to change is a custom property
 * (inherited through the shadow boundary) or reachable with ::part(); colours default to the
 * page's system colours, so light and dark pages read well without any theming.
 */
export const STYLE = `
:host { display: block; font: inherit; color: var(--rcp-search-color, inherit); }
.box { position: relative; max-width: var(--rcp-search-width, 40rem); }
input { box-sizing: border-box; width: 100%; font: inherit; padding: var(--rcp-search-padding, 0.5rem 0.75rem);
  border: 1px solid var(--rcp-search-border, GrayText); border-radius: var(--rcp-search-radius, 0.375rem);
  background: var(--rcp-search-background, Canvas); color: inherit; }
input:focus-visible { outline: 2px solid var(--rcp-search-accent, Highlight); outline-offset: 1px; }
[part=status] { margin: 0.25rem 0; font-size: 0.875em; color: var(--rcp-search-muted, inherit); min-height: 1.25em; }
[part=filters] { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.5rem 0; font-size: 0.875em; }
[part=results] { margin: 0; padding: 0; max-height: var(--rcp-search-max-height, 70vh); overflow: auto;
  background: var(--rcp-search-background, Canvas); }
[part=group] { padding: 0.25rem 0; border-top: 1px solid var(--rcp-search-border, GrayText); }
[part=group-title] { font-weight: 600; padding: 0.25rem 0.5rem; }
[part=passage], [part=recent] { padding-block: 0.375rem; padding-inline: 1rem 0.5rem; cursor: pointer; border-radius: var(--rcp-search-radius, 0.375rem); }
[part=passage][aria-selected=true], [part=passage]:hover, [part=recent][aria-selected=true], [part=recent]:hover { background: var(--rcp-search-active, SelectedItem); color: var(--rcp-search-active-text, SelectedItemText); }
[part=section] { display: block; font-size: 0.8em; }
[part=count] { font-weight: normal; font-size: 0.8em; color: var(--rcp-search-muted, inherit); margin-inline-start: 0.5rem; }
[part=clear-recent] { display: block; margin-inline-start: auto; font: inherit; font-size: 0.8em; padding: 0.125rem 0.5rem; }
mark { background: var(--rcp-search-mark, Mark); color: var(--rcp-search-mark-text, MarkText); }
[part=trigger] { font: inherit; padding: 0.375rem 0.75rem; border-radius: var(--rcp-search-radius, 0.375rem); }
dialog { width: min(44rem, 92vw); border: none; border-radius: var(--rcp-search-radius, 0.5rem); padding: 1rem;
  background: var(--rcp-search-background, Canvas); color: inherit; }
dialog::backdrop { background: var(--rcp-search-backdrop, rgb(0 0 0 / 0.45)); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
[hidden] { display: none !important; }
`;
