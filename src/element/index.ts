/**
 * `rcp-in-page/search`: the `<rcp-search>` element. Importing this module registers it; the
 * engine behind it starts only when the element is first used.
 */
import { defineRcpSearch } from './rcp-search.ts';

export { RcpSearchElement, defineRcpSearch } from './rcp-search.ts';
export { deepLink, textDirective } from './deep-link.ts';

defineRcpSearch();
