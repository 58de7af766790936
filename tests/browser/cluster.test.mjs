// Page tests of the cluster-sweep round trip (issue #26, docs/cluster.md) on the release build
// in dist/ (`trunk build --release --offline`, `cargo build --release --bin gridscope` first):
// the scheduling view's "Export for a cluster" manifest, planned, run and merged by the real
// CLI, gives the page's numbers; the CLI's merged tables dropped on the page are drawn with
// the same medians and bands; a manifest link opens its summary; a file that is not a merged
// table is refused with what is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { waitResults, dropFiles, canvasInk, repoRoot, traces, pageSuite, assertCleanPages, assertOnView } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const TRACE = 'KTH-SP2-1996-2.1-cln.swf.gz';
const { open, pages } = pageSuite();

function gridscope(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release --bin gridscope\` first`);
  return execFileSync(CLI, args, { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

/** points.csv as rows of { point: [...], label, metric, n, median, ci_low, ci_high } (no quoted
 *  fields in these tests' labels). */
function readPoints(file) {
  const [head, ...rows] = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(','));
  const axes = head.length - 7;
  return rows.map((f) => ({
    point: f.slice(0, axes), label: f[axes], metric: f[axes + 1], n: Number(f[axes + 2]),
    median: Number(f[axes + 3]), ci_low: Number(f[axes + 4]), ci_high: Number(f[axes + 5]),
  }));
}

/** The merged chart's lines as drawn: { line: { median, lo, hi } } and its x values. */
async function drawnLines(page) {
  await page.waitForSelector('[data-testid=chart-merged][data-lines]');
  return page.$eval('[data-testid=chart-merged]', (c) => ({
    x: JSON.parse(c.dataset.x),
    lines: Object.fromEntries(JSON.parse(c.dataset.lines).map((l) => [l.line, l])),
  }));
}

/** Plans, runs (one shard) and merges a manifest file with the CLI; returns DIR. */
function sweep(manifest) {
  const dir = path.join(path.dirname(manifest), 'sweep');
  gridscope(['sweep', 'plan', manifest, '--out', dir]);
  gridscope(['sweep', 'run', dir, '--shard', '0/1']);
  gridscope(['sweep', 'merge', dir]);
  return dir;
}

let merged; // the first test's sweep folder, dropped back in the second

test('Export for a cluster: plan + run + merge of the downloaded manifest gives the page\'s numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  const trace = path.join(traces, TRACE);
  await dropFiles(page, [{ name: TRACE, bytes: fs.readFileSync(trace) }]);
  await page.waitForFunction((t) => document.querySelector('[data-testid=run-info]')?.textContent.startsWith(t), TRACE, { timeout: 60_000 });
  const shown = await waitResults(page, 5, 120_000);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=cluster-export]')]);
  assert.match(download.suggestedFilename(), /\.manifest\.json$/);
  const text = fs.readFileSync(await download.path(), 'utf8');
  const m = JSON.parse(text);
  assert.equal(m.base.scenario.workload.file, TRACE);
  assert.deepEqual(m.axes.map((a) => a.path), ['seed']);
  assert.match(await page.textContent('[data-testid=cluster-export-help]'), /reads KTH-SP2.* by name beside the manifest/);
  // The manifest beside the trace (a link to the shared copy, never a copy in the repo).
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-cluster-'));
  fs.symlinkSync(trace, path.join(tmp, TRACE));
  fs.writeFileSync(path.join(tmp, 'study.manifest.json'), text);
  merged = sweep(path.join(tmp, 'study.manifest.json'));
  const points = readPoints(path.join(merged, 'merged', 'points.csv'));
  let compared = 0;
  for (const p of points) {
    const v = shown[p.label]?.[p.metric];
    if (v === undefined) continue;
    assert.equal(p.n, 1);
    assert.equal(p.median, v, `${p.label} ${p.metric}: merged ${p.median}, page ${v}`);
    compared++;
  }
  assert.deepEqual([...new Set(points.map((p) => p.label))].sort(), Object.keys(shown).sort());
  assert.ok(compared >= 5 * 10, `only ${compared} numbers compared`);
});

test('a merged table dropped on the page is drawn with the CLI\'s medians and bands', async () => {
  // Three seeds of the demo's generated workload (its five policies), two event orders and
  // two sizes: a real band per point.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-merged-'));
  const manifest = {
    name: 'demo sizes',
    base: { preset: 'demo' },
    axes: [
      { name: 'order', path: 'options.event_order', values: ['gridscope', 'pyss'] },
      { name: 'jobs', path: 'workload.jobs', values: [300, 600] },
      { path: 'seed', range: { from: 1, to: 3 } },
    ],
  };
  fs.writeFileSync(path.join(tmp, 'm.json'), JSON.stringify(manifest));
  const dir = sweep(path.join(tmp, 'm.json'));
  const points = readPoints(path.join(dir, 'merged', 'points.csv'));
  const page = await open('#/scheduling');
  await waitResults(page, 5);
  // Dropped anywhere on the scheduling view: the page goes to the cluster view.
  await dropFiles(page, [{ name: 'points.csv', bytes: fs.readFileSync(path.join(dir, 'merged', 'points.csv')) }]);
  await assertOnView(page, 'cluster');
  await page.selectOption('[data-testid=cluster-metric]', 'avg_wait_s');
  assert.match(await page.textContent('[data-testid=cluster-metric-help]'), /^mean over jobs that ran of \(start − submit\), seconds — SOB §3\.2$/);
  const check = async () => {
    const drawn = await drawnLines(page);
    assert.deepEqual(drawn.x, ['300', '600']);
    const want = points.filter((p) => p.metric === 'avg_wait_s');
    assert.equal(want.length, 5 * 2 * 2);
    for (const p of want) {
      const line = drawn.lines[`${p.label} · order=${p.point[0]}`];
      assert.ok(line, `no line for ${p.label} ${p.point[0]}: ${Object.keys(drawn.lines)}`);
      const i = drawn.x.indexOf(p.point[1]);
      assert.deepEqual([line.median[i], line.lo[i], line.hi[i]], [p.median, p.ci_low, p.ci_high]);
      assert.equal(p.n, 3);
    }
    assert.ok(await canvasInk(page, 'chart-merged') > 0.02, 'the merged chart looks blank');
    const rows = await page.$$eval('[data-testid=chart-merged-data] tbody tr', (r) => r.length);
    assert.equal(rows, 10);
  };
  await check();
  // merged.json, picked with the view's file input, is the same picture.
  await page.setInputFiles('[data-testid=cluster-file]', path.join(dir, 'merged', 'merged.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid=cluster-table-summary]').textContent.startsWith('merged.json (demo sizes)'));
  await check();
  assert.match(await page.textContent('[data-testid=cluster-table-summary]'), /medians over 'seed'/);
  // The first test's one-seed table (a trace's sweep) draws too.
  if (merged) {
    await page.setInputFiles('[data-testid=cluster-file]', path.join(merged, 'merged', 'merged.json'));
    await page.waitForFunction(() => /: \d+ points of/.test(document.querySelector('[data-testid=cluster-table-summary]').textContent));
  }
});

test('the view has something to try: the shipped example opens with the medians of examples/cluster/points.csv', async () => {
  const page = await open('#/cluster');
  await page.click('[data-testid=cluster-example]');
  await page.waitForSelector('[data-testid=cluster-table]');
  assert.match(await page.textContent('[data-testid=cluster-table-summary]'), /^examples\/cluster\/points\.csv/);
  const points = readPoints(path.join(repoRoot, 'examples', 'cluster', 'points.csv'));
  await page.selectOption('[data-testid=cluster-metric]', 'avg_wait_s');
  const drawn = await drawnLines(page);
  assert.deepEqual(drawn.x, ['500', '1000', '2000', '4000']);
  for (const p of points.filter((p) => p.metric === 'avg_wait_s')) {
    const line = drawn.lines[p.label];
    assert.ok(line, `no line for ${p.label}: ${Object.keys(drawn.lines)}`);
    const i = drawn.x.indexOf(p.point[0]);
    assert.deepEqual([line.median[i], line.lo[i], line.hi[i]], [p.median, p.ci_low, p.ci_high]);
  }
  assert.ok(await canvasInk(page, 'chart-merged') > 0.02, 'the merged chart looks blank');
});

test('files that are not merged tables are refused with what is wrong', async () => {
  const page = await open('#/cluster');
  await page.waitForSelector('[data-testid=cluster-file]');
  const bad = async (name, body, re) => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-bad-')), name);
    fs.writeFileSync(f, body);
    await page.setInputFiles('[data-testid=cluster-file]', f);
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid=cluster-error]')?.textContent ?? ''), re.source);
  };
  await bad('trace.swf', '; an SWF header\n1 0 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n', /^trace\.swf: line 1: not a merged table's header/);
  await bad('cases.csv', 'case,case_id,seed,label\n0,ab,1,easy\n', /this is cases\.csv/);
  await bad('m.json', JSON.stringify({ base: { preset: 'demo' }, axes: [] }), /no "points" field.*sweep manifest/);
  await bad('p.csv', 'label,metric,n,median,ci_low,ci_high,coverage\neasy,avg_wait_s,3,ten,1,2,0.75\n', /^p\.csv: line 2: median 'ten' is not a number$/);
  // A file named points.csv dropped on the page that is not one: the same error, not a workload.
  await dropFiles(page, [{ name: 'points.csv', bytes: Buffer.from('; SWF\n1 0 10 100 4\n') }]);
  await page.waitForFunction(() => /^points\.csv: line 1: not a merged table/.test(document.querySelector('[data-testid=cluster-error]')?.textContent ?? ''));
  assert.equal(await page.$('[data-testid=error]'), null, 'the workload drop saw it too');
  // Before a run the family views say where their export will be.
  for (const view of ['sf', 'ses', 'kkor', 'scjg']) {
    const note = await page.textContent(`#view-${view} [data-testid=cluster-export-after-run]`);
    assert.match(note, /^Export for a cluster: run the sweep first; its manifest then reproduces what is on screen/);
  }
});

test('Export for a cluster on the SF view: the CLI\'s merge of the downloaded manifest gives the page\'s medians, and draws back', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-sf]');
  await page.selectOption('[data-testid=sf-preset]', { label: 'sf-heterogeneity' });
  for (const [sel, v] of [['#sf-x', '1,5,10'], ['#sf-seeds', '3'], ['#sf-batches', '1000']]) { await page.fill(sel, v); await page.press(sel, 'Tab'); }
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  const shown = Object.fromEntries(await page.$$eval('[data-testid=sf-table] tbody tr', (rows) =>
    rows.map((r) => [r.dataset.policy, [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))])));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=sf-cluster-export]')]);
  assert.match(download.suggestedFilename(), /^sf-heterogeneity-exported-from-the-page\.manifest\.json$/);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-sf-'));
  const manifest = path.join(tmp, download.suggestedFilename());
  await download.saveAs(manifest);
  const m = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  assert.deepEqual(m.base.run, { preset: 'sf-heterogeneity', batches: 1000, x: [1], seed: 1 });
  assert.deepEqual(m.axes.map((a) => a.name ?? a.path), ['x', 'seed']);
  const dir = sweep(manifest);
  const points = readPoints(path.join(dir, 'merged', 'points.csv'));
  assert.equal(points.length, 3 * 3);
  for (const p of points) {
    const i = ['1', '5', '10'].indexOf(p.point[0]);
    assert.equal(p.metric, 'mean_response_s');
    assert.equal(p.n, 3);
    assert.equal(p.median, shown[p.label][i], `${p.label} x=${p.point[0]}: merged ${p.median}, page ${shown[p.label][i]}`);
  }
  // The manifest as a link: its summary in the Cluster sweeps view.
  await page.click('[data-testid=sf-cluster-export-link]');
  const url = await page.textContent('[data-testid=sf-cluster-export-url]');
  assert.match(url, /#m1=[A-Za-z0-9_-]+$/);
  const shared = await open(url.slice(url.indexOf('#')));
  await assertOnView(shared, 'cluster');
  assert.match(await shared.textContent('[data-testid=cluster-manifest-summary]'), /^9 cases; axes: x \(3 values\) × seed \(3 values, medians over it\); each case one seed of sf-heterogeneity at one point\.$/);
  // The merged table dropped back: one line per policy over x, the page's medians.
  await dropFiles(shared, [{ name: 'points.csv', bytes: fs.readFileSync(path.join(dir, 'merged', 'points.csv')) }]);
  await shared.waitForSelector('[data-testid=cluster-table]');
  assert.equal(await shared.$eval('[data-testid=cluster-metric]', (s) => s.value), 'mean_response_s');
  assert.match(await shared.textContent('[data-testid=cluster-metric-help]'), /^SF: mean response time/);
  const drawn = await drawnLines(shared);
  assert.deepEqual(drawn.x, ['1', '5', '10']);
  for (const policy of ['ww', 'owa', 'dll']) {
    assert.ok(drawn.lines[policy], `no line ${policy}: ${Object.keys(drawn.lines)}`);
    assert.deepEqual(drawn.lines[policy].median, shown[policy]);
  }
  assert.ok(await canvasInk(shared, 'chart-merged') > 0.02, 'the merged chart looks blank');
});

test('Export for a cluster on the KKOR view: the merge of its manifest has the view\'s medians', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-kkor]');
  await page.selectOption('[data-testid=kkor-preset]', { label: 'kkor-load' });
  for (const [sel, v] of [['#kkor-seeds', '3'], ['#kkor-loads', '0.5,0.9']]) { await page.fill(sel, v); await page.press(sel, 'Tab'); }
  await page.click('[data-testid=kkor-run]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=kkor-table] thead th').length === 4, null, { timeout: 60_000 });
  const shown = await page.$$eval('[data-testid=kkor-table] tbody tr', (rows) =>
    rows.map((r) => [r.dataset.policy, r.dataset.metric, [...r.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))]));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=kkor-cluster-export]')]);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-kkor-'));
  const manifest = path.join(tmp, download.suggestedFilename());
  await download.saveAs(manifest);
  assert.deepEqual(JSON.parse(fs.readFileSync(manifest, 'utf8')).base.run, { preset: 'kkor-load', x: [0.5], seed: 1 });
  const points = readPoints(path.join(sweep(manifest), 'merged', 'points.csv'));
  assert.equal(shown.length, 15);
  for (const [policy, metric, medians] of shown) {
    ['0.5', '0.9'].forEach((x, i) => {
      const p = points.find((q) => q.point[0] === x && q.label === policy && q.metric === metric);
      assert.ok(p, `no merged ${x} ${policy} ${metric}`);
      assert.equal(p.median, medians[i], `${x} ${policy} ${metric}`);
    });
  }
  // A preset that is no seed sweep over x says why it has no manifest.
  await page.selectOption('[data-testid=kkor-preset]', { label: 'kkor-fairness' });
  await page.fill('#kkor-loads', '0.3,0.3,1.1'); await page.press('#kkor-loads', 'Tab');
  await page.click('[data-testid=kkor-run]');
  await page.waitForFunction(() => /^Export for a cluster: not for this run — kkor-fairness is not a seed sweep over x/.test(document.querySelector('#view-kkor [data-testid=cluster-not-exportable]')?.textContent ?? ''), null, { timeout: 60_000 });
});

test('a manifest travels as a #m1= link: its summary, its download, its cases', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=cluster-export-link]');
  const url = await page.textContent('[data-testid=cluster-export-url]');
  assert.match(url, /#m1=[A-Za-z0-9_-]+$/);
  const [exported] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=cluster-export]')]);
  const shared = await open(url.slice(url.indexOf('#')));
  await assertOnView(shared, 'cluster');
  assert.match(await shared.textContent('[data-testid=cluster-manifest-summary]'), /^1 case; axes: seed \(1 value, medians over it\); work: ≈ 10,000 job-runs\.$/);
  const [again] = await Promise.all([shared.waitForEvent('download'), shared.click('[data-testid=cluster-manifest-download]')]);
  assert.equal(fs.readFileSync(await again.path(), 'utf8'), fs.readFileSync(await exported.path(), 'utf8'));
  // A manifest written by hand, packed as the page packs links: deflate + base64url.
  const m = { name: 'by hand', base: { preset: 'demo' }, axes: [{ path: 'seed', range: { from: 1, to: 30 } }, { name: 'order', path: 'options.event_order', values: ['gridscope', 'pyss'] }] };
  const frag = 'm1=' + zlib.deflateRawSync(Buffer.from(JSON.stringify(m))).toString('base64url');
  const hand = await open('#' + frag);
  assert.match(await hand.textContent('[data-testid=cluster-manifest-summary]'), /^60 cases; axes: seed \(30 values, medians over it\) × order \(2 values\); work: ≈ 600,000 job-runs\.$/);
  assert.equal((await hand.$$('[data-testid=cluster-case]')).length, 20);
  // A case opens in the scheduling view and runs there.
  await hand.click('[data-testid=cluster-case] >> nth=1');
  await assertOnView(hand, 'scheduling');
  await waitResults(hand, 5);
  // A damaged link says so; a manifest with a glob says the page cannot list it.
  const broken = await open('#m1=AAAA');
  await broken.waitForSelector('[data-testid=cluster-manifest-error]');
  const glob = { base: { preset: 'demo' }, traces: '.', axes: [{ path: 'workload', glob: 'traces/*.swf' }] };
  const g = await open('#m1=' + zlib.deflateRawSync(Buffer.from(JSON.stringify(glob))).toString('base64url'));
  assert.match(await g.textContent('[data-testid=cluster-manifest-summary]'), /cannot list traces\/\*\.swf/);
});

test('no page left 127.0.0.1 or logged an error', () => assertCleanPages(pages, 11));
