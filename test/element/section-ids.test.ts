import { describe, expect, it } from 'vitest';
import { DOMParser } from 'linkedom';
import { htmlPage } from '../../cli/html-page.ts';
import { anchorOf } from '../../src/element/anchor.ts';

const parser = new DOMParser() as unknown as globalThis.DOMParser;
const page = (main: string) => htmlPage(`<!doctype html><html><head><title>Guide</title></head><body><main>${main}</main></body></html>`, parser);

describe('section anchors kept at index time', () => {
  it('keeps only the headings whose anchor is not their slug: own id, inner id or name, permalink, section id, none', () => {
    const p = page(`
      <h1>Guide</h1>
      <h2 id="install">Install</h2><p>a</p>
      <h2 id="sec-2">Usage <em>notes</em></h2><p>b</p>
      <h2><a name="legacy"></a>Old style</h2><p>c</p>
      <h2>Sphinx way<a class="headerlink" href="#sphinx-way-1">¶</a></h2><p>d</p>
      <section id="s-5"><h3>In a section</h3><p>e</p></section>
      <h3>No anchor at all</h3><p>f</p>
      <h3 id="install-2">Install</h3><p>g</p>
      <h2 id="icon">With an icon<svg><title>link</title></svg></h2><p>h</p>`);
    expect(p.meta.sectionIds).toEqual({
      'usage-notes': 'sec-2',
      'old-style': 'legacy',
      'sphinx-way': 'sphinx-way-1',
      'in-a-section': 's-5',
      'no-anchor-at-all': '',
      'with-an-icon': 'icon',
    });
    expect(p.text).toContain('## With an icon\n');
  });

  it('adds nothing to a page whose headings are anchored at their slugs, or that has none', () => {
    expect(page('<h2 id="install">Install</h2><p>a</p><h3 id="on-linux">On Linux</h3><p>b</p>').meta.sectionIds).toBeUndefined();
    expect(page('<h1>Guide</h1><p>only the title</p>').meta.sectionIds).toBeUndefined();
  });

  it('is what the element links to: the kept id, no anchor for none, else the slug', () => {
    const meta = { sectionIds: { 'usage-notes': 'sec-2', 'no-anchor-at-all': '' } };
    expect(anchorOf('Usage notes', meta)).toBe('sec-2');
    expect(anchorOf('No anchor at all', meta)).toBeUndefined();
    expect(anchorOf('Install', meta)).toBe('install');
    expect(anchorOf('Install', { sectionIds: 'garbage' })).toBe('install');
    expect(anchorOf('!!!')).toBeUndefined();
  });
});
