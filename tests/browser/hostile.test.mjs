// Hostile share links against the page: each gets a clear message or waits for the
// visitor's go, and the page stays responsive. Links are built here the way the page builds
// them: prefix + base64url(raw deflate(JSON)).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { repoRoot, pageSuite, assertCleanPages, assertResponsive } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const { open, pages } = pageSuite();

function pack(prefix, value) {
  const raw = typeof value === 'string' ? Buffer.from(value) : Buffer.from(JSON.stringify(value));
  return `#${prefix}${zlib.deflateRawSync(raw, { level: 9 }).toString('base64url')}`;
}

function scenario(platform, workload) {
  return { scenario: { version: 1, name: 'hostile', seed: 1, platform, workload, algorithms: [{ local: 'easy' }, { local: 'fcfs' }] }, files: [] };
}


test('a 2 KB link naming 12,000 sites is refused before any form is built, in words a page visitor can act on', async () => {
  const sites = Array.from({ length: 12_000 }, () => ({ name: 's', nodes: 4, cpus_per_node: 1 }));
  const hash = pack('s1=', scenario({ kind: 'sites', name: 'wide', sites }, { kind: 'ses_poisson' }));
  assert.ok(hash.length < 4 * 1024, `fragment of ${hash.length} characters`);
  const page = await open(hash);
  await page.waitForSelector('[data-testid=error]', { timeout: 30_000 });
  const error = await page.textContent('[data-testid=error]');
  assert.match(error, /cannot open: platform 'wide': more than 4,096 sites/);
  assert.match(error, /command-line gridscope/);
  assert.doesNotMatch(error, /--max/, 'no CLI flag the visitor cannot pass');
  // The default scenario instead, its site editor a handful of rows, the page small.
  await page.waitForSelector('[data-testid=report-json]', { state: 'attached', timeout: 30_000 });
  const { rows, nodes } = await page.evaluate(() => ({ rows: document.querySelectorAll('table.sites tr').length, nodes: document.getElementsByTagName('*').length }));
  assert.ok(rows < 20 && nodes < 5000, `${rows} site rows, ${nodes} DOM nodes`);
  await assertResponsive(page);
});

test('a link naming 5,000 sites of a generator is refused with the limit, not run', async () => {
  const sites = Array.from({ length: 5000 }, (_, i) => ({ name: `s${i}`, nodes: 4, cpus_per_node: 1 }));
  const hash = pack('s1=', scenario({ kind: 'sites', name: 'wide', sites }, { kind: 'ses_poisson' }));
  const page = await open(hash);
  await page.waitForSelector('[data-testid=error]', { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid=error]'), /more than 4,096 sites/);
  await assertResponsive(page);
});

test('a sweep link past the limits is refused at once, in view, with no Run offered', async () => {
  const small = JSON.parse(execFileSync(CLI, ['run', '--preset', 'sf-batch', '--seeds', '1', '--batches', '300', '--json'], { encoding: 'utf8' }));
  const hash = pack('w1=', { spec: small.spec, seeds: 1000, batches: 10_000_000 });
  const page = await open(hash);
  await page.waitForSelector('[data-testid=sf-error]');
  assert.match(await page.textContent('[data-testid=sf-error]'), /This shared sweep cannot run: this sweep would simulate [\d.e+]+ jobs, more than the limit/);
  assert.doesNotMatch(await page.textContent('[data-testid=sf-error]'), /--max/);
  assert.equal(await page.$('[data-testid=sf-notice]'), null, 'no "press Run" invitation');
  const inView = await page.$eval('[data-testid=sf-error]', (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight - 60; });
  assert.ok(inView, 'the refusal is in view, clear of the sticky bar');
  await page.waitForTimeout(500);
  assert.equal(await page.isDisabled('[data-testid=sf-cancel]'), true, 'nothing started');
});

test('a link asking for millions of jobs waits for Run, and says what it would run', async () => {
  const hash = pack('s1=', scenario({ kind: 'preset', name: 'demo' }, { kind: 'ses_poisson', jobs: 5_000_000 }));
  const page = await open(hash);
  await page.waitForSelector('[data-testid=confirm]');
  assert.match(await page.textContent('[data-testid=confirm]'), /10,000,000 job-runs/);
  // Nothing runs until the visitor says so.
  await page.waitForTimeout(1500);
  assert.ok(!(await page.textContent('[data-testid=status]')).startsWith('running'));
  assert.equal(await page.$$eval('[data-testid=results] tbody tr', (r) => r.length), 0);
  await assertResponsive(page);
  // Run it, then cancel: the long run stops at once and the page is free.
  await page.click('[data-testid=confirm-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'), null, { timeout: 30_000 });
  assert.equal(await page.$('[data-testid=confirm]'), null);
  await assertResponsive(page);
  await page.click('[data-testid=cancel]');
  await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('cancelled'), null, { timeout: 30_000 });
});

test('a deflate bomb in a link is refused by size', async () => {
  // 5 MB of spaces inside a JSON string: a few KB of link.
  const bomb = `{"scenario":{"version":1,"name":"${' '.repeat(5 << 20)}"}}`;
  const hash = pack('s1=', bomb);
  assert.ok(hash.length < 32 * 1024, `fragment of ${hash.length} characters`);
  const page = await open(hash);
  await page.waitForSelector('[data-testid=error]');
  assert.match(await page.textContent('[data-testid=error]'), /too large/);
  await assertResponsive(page);
});

test('a sweep link above the estimate waits for Run sweep', async () => {
  const small = JSON.parse(execFileSync(CLI, ['run', '--preset', 'sf-batch', '--seeds', '1', '--batches', '300', '--json'], { encoding: 'utf8' }));
  // 278 jobs a batch summed over the points × 3 policies × 30 seeds × 20,000 batches = 5·10⁸:
  // above what a link starts by itself (2·10⁸), within the limit (10⁹).
  const hash = pack('w1=', { spec: small.spec, seeds: 30, batches: 20000 });
  const page = await open(hash);
  await page.waitForSelector('[data-testid=sf-notice]');
  assert.match(await page.textContent('[data-testid=sf-notice]'), /press Run to start it/);
  await page.waitForTimeout(1000);
  assert.equal(await page.isDisabled('[data-testid=sf-cancel]'), true, 'the sweep started by itself');
});

test('a family link of thousands of runs waits for Run', async () => {
  const hash = pack('f1=', { family: 'kkor', preset: 'kkor-load', seeds: 1000, options: { loads: [0.2, 0.5, 0.8] } });
  const page = await open(hash);
  await page.waitForSelector('[data-testid=kkor-notice]', { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid=kkor-notice]'), /3000 runs/);
  // The same run as this version writes it.
  const f2 = pack('f2=', { run: { spec: { preset: 'kkor-load', seeds: 1000, x: [0.2, 0.5, 0.8] } } });
  const again = await open(f2);
  await again.waitForSelector('[data-testid=kkor-notice]', { timeout: 30_000 });
  assert.match(await again.textContent('[data-testid=kkor-notice]'), /3000 runs/);
});

test('a family link that cannot open says what is wrong', async () => {
  for (const [hash, msg] of [
    ['#f1=not*base64!', /family link cannot open: the share link is damaged/],
    [pack('f2=', { run: { spec: { preset: 'nope' } } }), /the preset 'nope', which this version does not know/],
    [pack('f1=', { family: 'kkor', preset: 'kkor-load' }), /does not hold a preset run/],
    ['#f7=abc', /family link format 'f7'/],
  ]) {
    const page = await open(hash);
    await page.waitForSelector('[data-testid=link-error]', { timeout: 30_000 });
    assert.match(await page.textContent('[data-testid=link-error]'), msg);
  }
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 5);
});
