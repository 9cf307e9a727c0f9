import { describe, expect, it } from 'vitest';
import { connectAllowed, connectSources } from '../../src/app/learn/connect-policy.ts';
import { CSP } from '../../vite.config.ts';

describe("the page's connect-src", () => {
  it('allows loopback on any port and the page itself; nothing else without the build-time allowance', () => {
    const sources = connectSources(CSP);
    const page = 'http://localhost:5173';
    expect(connectAllowed('http://127.0.0.1:8787/rcp', sources, page)).toBe(true);
    expect(connectAllowed('http://localhost:9/rcp', sources, page)).toBe(true);
    expect(connectAllowed('http://localhost:5173/rcp', sources, page)).toBe(true);
    expect(connectAllowed('https://search.example.com/rcp', sources, page)).toBe(false);
    expect(connectAllowed('http://127.0.0.2:8787/rcp', sources, page)).toBe(false);
    expect(connectAllowed('not a url', sources, page)).toBe(false);
  });

  it('reads host, port and scheme sources the way the browser does for these forms', () => {
    const s = connectSources("default-src 'self'; connect-src 'self' https://search.example.com http://10.0.0.5:8080");
    expect(connectAllowed('https://search.example.com/rcp', s, 'http://localhost')).toBe(true);
    expect(connectAllowed('https://search.example.com:8443/rcp', s, 'http://localhost')).toBe(false);
    expect(connectAllowed('http://10.0.0.5:8080/rcp', s, 'http://localhost')).toBe(true);
    expect(connectAllowed('http://10.0.0.5/rcp', s, 'http://localhost')).toBe(false);
    expect(connectSources("default-src 'self'")).toEqual(["'self'"]);
    expect(connectSources(undefined)).toBeUndefined();
  });
});
