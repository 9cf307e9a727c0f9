/** The area and inspector in the address, beside the search state. */
import { describe, expect, it } from 'vitest';
import { readLayoutState, writeLayoutState } from '../../src/app/areas.ts';
import { readSearchState, writeSearchState } from '../../src/app/url-state.ts';

describe('layout state in the address', () => {
  it('reads the panel and the inspector', () => {
    expect(readLayoutState('?panel=models&inspector=1')).toEqual({ panel: 'models', inspector: true });
    expect(readLayoutState('')).toEqual({ panel: undefined, inspector: false });
  });

  it('writes them without touching the search, and leaves the default area out', () => {
    const withSearch = writeSearchState('', { q: 'white whale', k: '5' });
    const both = writeLayoutState(withSearch, { panel: 'documents', inspector: true });
    expect(readSearchState(both)).toEqual({ q: 'white whale', k: '5' });
    expect(readLayoutState(both)).toEqual({ panel: 'documents', inspector: true });
    expect(writeLayoutState(both, { panel: 'search', inspector: false })).toBe(withSearch);
    // The search writer keeps the layout keys in turn.
    expect(readLayoutState(writeSearchState(both, { q: 'harpoon' }))).toEqual({ panel: 'documents', inspector: true });
  });
});
