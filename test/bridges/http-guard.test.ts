import { describe, expect, it } from 'vitest';
import { corsHeaders, refuse } from '../../bridges/http-guard.ts';

const open = { allowOrigins: new Set<string>() };
const post = { method: 'POST', host: '127.0.0.1:8787', contentType: 'application/json' };

describe('HTTP bridge guard (issue 10, defect 2)', () => {
  it('accepts loopback Host values only (DNS rebinding)', () => {
    for (const host of ['127.0.0.1:8787', 'localhost:8787', 'LOCALHOST', '[::1]:1']) expect(refuse({ ...post, host }, open)).toBeUndefined();
    for (const host of ['evil.example', 'evil.example:8787', '127.0.0.1.evil.example', 'localhost.evil', '10.0.0.1:8787', undefined]) {
      expect(refuse({ ...post, host }, open)?.status).toBe(403);
    }
  });

  it('refuses browser origins unless allowed, and never answers with a wildcard', () => {
    expect(refuse({ ...post, origin: 'https://evil.example' }, open)?.status).toBe(403);
    expect(refuse({ ...post, origin: 'null' }, open)?.status).toBe(403);
    const allowed = { allowOrigins: new Set(['http://localhost:5173']) };
    expect(refuse({ ...post, origin: 'http://localhost:5173' }, allowed)).toBeUndefined();
    expect(refuse({ ...post, origin: 'http://localhost:5174' }, allowed)?.status).toBe(403);
    expect(corsHeaders('http://localhost:5173')['Access-Control-Allow-Origin']).toBe('http://localhost:5173');
    expect(Object.values(corsHeaders(undefined))).not.toContain('*');
  });

  it('requires application/json on POST (a page can send text/plain without a preflight)', () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', undefined]) {
      expect(refuse({ ...post, contentType }, open)?.status).toBe(415);
    }
    expect(refuse({ ...post, contentType: 'application/json; charset=utf-8' }, open)).toBeUndefined();
  });

  it('checks the bearer token on every request but the preflight', () => {
    const locked = { allowOrigins: new Set<string>(), token: 's3cret' };
    expect(refuse(post, locked)).toMatchObject({ status: 401, headers: { 'WWW-Authenticate': expect.stringContaining('Bearer') } });
    expect(refuse({ ...post, authorization: 'Bearer wrong!' }, locked)?.status).toBe(401);
    expect(refuse({ ...post, authorization: 'Basic s3cret' }, locked)?.status).toBe(401);
    expect(refuse({ ...post, authorization: 'Bearer s3cret' }, locked)).toBeUndefined();
    expect(refuse({ method: 'OPTIONS', host: 'localhost' }, locked)).toBeUndefined();
  });
});
