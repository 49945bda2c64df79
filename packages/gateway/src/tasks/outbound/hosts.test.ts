import test from 'node:test';
import assert from 'node:assert/strict';
import { hostAllowed } from './hosts.ts';

test('channel host and allowedHosts, port-sensitive, baseUrl not implied', () => {
  const u = (s: string) => new URL(s);
  assert.equal(hostAllowed(u('http://127.0.0.1:8080/x'), 'http://127.0.0.1:8080'), true);
  assert.equal(hostAllowed(u('http://127.0.0.1:8081/x'), 'http://127.0.0.1:8080'), false);
  assert.equal(hostAllowed(u('https://cdn.example.com/a'), 'http://127.0.0.1:8080', ['cdn.example.com']), true);
  assert.equal(hostAllowed(u('http://cdn.example.com/a'), '', ['cdn.example.com']), true);
  assert.equal(hostAllowed(u('http://cdn.example.com/a'), '', ['cdn.example.com:80']), false);
  assert.equal(hostAllowed(u('http://cdn.example.com:9000/a'), '', ['cdn.example.com']), false);
  assert.equal(hostAllowed(u('http://cdn.example.com:9000/a'), '', ['cdn.example.com:9000']), true);
  assert.equal(hostAllowed(u('https://evil.example.com/'), 'https://api.example.com', []), false);
});
