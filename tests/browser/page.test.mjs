// Page tests of the Gridscope app on the release build in dist/ (run `trunk build --release
// --offline` first, and `cargo build --release` for the CLI the numbers are checked against):
//   node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, waitResults, readResults, dropFiles, canvasInk, repoRoot, traces, assertSameNumbers, pageSuite, assertCleanPages, assertResponsive, assertOnView } from './harness.mjs';

const SDSC = path.join(traces, 'SDSC-SP2-1998-4.2-cln.swf.gz');
const OTHER = path.join(traces, 'NASA-iPSC-1993-3.1-cln.swf.gz');
const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const POLICIES = ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit'];

const { open, newPage, pages } = pageSuite();

/** The CLI's metrics for a command, as { label: metrics }. */
function cli(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release\` first`);
  const report = JSON.parse(execFileSync(CLI, [...args, '--json'], { maxBuffer: 64 << 20 }).toString());
  return Object.fromEntries(report.runs.map((r) => [r.label, r.metrics]));
}



test('the demo scenario runs on load, without a click', async () => {
  const t0 = Date.now();
  const page = await open();
  const rows = await waitResults(page, 5);
  console.log(`# demo results shown ${Date.now() - t0} ms after navigation`);
  assert.deepEqual(Object.keys(rows), POLICIES);
  assertSameNumbers(rows, cli(['run', '--preset', 'demo']));
  // The workload's offered load, as the CLI's report has it (0.72), with its formula.
  const info = page.locator('[data-testid=run-info]');
  assert.match(await info.textContent(), /; offered load 0\.72$/);
  assert.match(await info.getAttribute('title'), /^Offered load: .*last submit − first submit/);
  await page.waitForFunction(() => document.querySelector('[data-testid=chart-gantt]'));
  await page.waitForTimeout(300);
  for (const id of ['chart-bars', 'chart-cdf', 'chart-util', 'chart-queue', 'chart-gantt']) {
    const ink = await canvasInk(page, id);
    assert.ok(ink > 0.02, `${id} looks blank (${ink})`);
  }
  // Hovering a chart says what is under the pointer.
  const bars = page.locator('[data-testid=chart-bars]');
  const box = await bars.boundingBox();
  await bars.hover({ position: { x: box.width * 0.25, y: box.height * 0.6 } });
  await page.waitForFunction(() => /× fcfs/.test(document.querySelector('[data-testid=chart-bars-hover]').textContent));
  const gantt = page.locator('[data-testid=chart-gantt]');
  const g = await gantt.boundingBox();
  await gantt.hover({ position: { x: g.width * 0.4, y: g.height * 0.8 } });
  await page.waitForFunction(() => /job \d+|idle/.test(document.querySelector('[data-testid=chart-gantt-hover]').textContent));
  // Exports: metrics JSON (the CLI's report) and the generated workload as SWF.
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('text=Export metrics JSON')]);
  const report = JSON.parse(fs.readFileSync(await json.path(), 'utf8'));
  assert.deepEqual(report.runs.map((r) => r.label), POLICIES);
  const [swf] = await Promise.all([page.waitForEvent('download'), page.click('text=Export workload as SWF')]);
  const lines = fs.readFileSync(await swf.path(), 'utf8').trim().split('\n');
  assert.equal(lines.filter((l) => !l.startsWith(';')).length, 2000);
  // Durations read in the unit that fits, the exact seconds on hover; the run's name stays
  // in view when the table scrolls sideways.
  const fcfsWait = page.locator('[data-testid=results] tr[data-label=fcfs] td[data-key=avg_wait_s]');
  assert.equal(await fcfsWait.textContent(), '4 min 18 s');
  assert.equal(await fcfsWait.getAttribute('title'), '257.6 s');
  const makespan = page.locator('[data-testid=results] tr[data-label=fcfs] td[data-key=makespan_s]');
  assert.equal(await makespan.textContent(), '15.1 d');
  assert.equal(await page.$eval('[data-testid=results] tbody th[scope=row]', (th) => getComputedStyle(th).position), 'sticky');
  // Sorting by a column reorders the rows.
  await page.click('[data-testid=results] thead th:nth-child(2) button');
  const waits = await page.$$eval('[data-testid=results] tbody td[data-key=avg_wait_s]', (t) => t.map((x) => Number(x.dataset.value)));
  assert.deepEqual(waits, [...waits].sort((a, b) => a - b));
});

test('results stay bound to the run that made them: a new preset or an edit marks them out of date, never relabels them', async () => {
  const page = await open();
  const demo = await waitResults(page, 5);
  const info = page.locator('[data-testid=run-info]');
  const stale = '[data-testid=stale-results]';
  assert.match(await info.textContent(), /^demo: /);
  assert.equal(await page.$(stale), null, 'fresh results are not out of date');
  // Choosing another preset changes the form, not the header of the numbers on screen.
  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-heavy');
  await page.waitForSelector(stale);
  assert.match(await info.textContent(), /^demo: .* 2,000 jobs; platform: /);
  const mark = await page.textContent(stale);
  assert.match(mark, /Out of date — Run to update/);
  assert.match(mark, /from “demo: [^”]+”, not from “sob-synthetic-heavy” now in the form/);
  assert.deepEqual(await readResults(page), demo, 'the numbers are the demo\'s still');
  // Back to the scenario that ran: nothing is out of date.
  await page.selectOption('[data-testid=scenario-preset]', 'demo');
  await page.waitForFunction((sel) => !document.querySelector(sel), stale);
  // An edit marks them too, and undoing it clears the mark.
  await page.click('[data-testid=alg-fcfs]');
  await page.waitForSelector(stale);
  assert.match(await page.textContent(stale), /before the changes made in the form since/);
  await page.click('[data-testid=alg-fcfs]');
  await page.waitForFunction((sel) => !document.querySelector(sel), stale);
  // Run makes the form's scenario the results' own.
  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-heavy');
  await page.waitForSelector(stale);
  await page.click('[data-testid=run]');
  await waitResults(page, 6, 120_000);
  assert.equal(await page.$(stale), null);
  assert.match(await info.textContent(), /^sob-synthetic-heavy — /);
});

test('the results table hides what says nothing for these runs, says so, and the column chooser brings it back', async () => {
  const page = await open();
  await waitResults(page, 5);
  const headers = () => page.$$eval('[data-testid=results] thead th', (ths) => ths.filter((t) => !t.hidden).map((t) => t.textContent.replace(/[▲▼]/g, '').trim()));
  const shown = await headers();
  // One site with CPU allocation: grid efficiency and occupancy are utilization again;
  // nothing migrates, is killed, rejected or skipped in the demo.
  for (const gone of ['grid efficiency', 'occupancy', 'transferred', 'killed', 'rejected', 'skipped']) {
    assert.ok(!shown.includes(gone), `${gone} shown: ${shown}`);
  }
  for (const kept of ['algorithm', 'avg wait', 'utilization', 'finished']) assert.ok(shown.includes(kept), `${kept} missing`);
  assert.match(await page.textContent('[data-testid=columns-hidden]'), /grid efficiency and occupancy \(equal to utilization in every run\); transferred, killed, rejected, skipped \(0 in every run\)/);
  // The hidden cells are still there with their numbers (copying, the CLI comparison).
  const rows = await readResults(page);
  assert.equal(rows.easy.grid_efficiency, rows.easy.utilization);
  // A count explains itself on hover.
  assert.match(await page.getAttribute('[data-label=easy] td[data-key=jobs_finished]', 'title'), /^2,000 jobs ran/);
  // The chooser shows a hidden column and hides a shown one; Defaults goes back.
  await page.click('[data-testid=columns] summary');
  await page.check('[data-testid=column-grid_efficiency]');
  await page.uncheck('[data-testid=column-wait_stddev_s]');
  const chosen = await headers();
  assert.ok(chosen.includes('grid efficiency') && !chosen.includes('wait sd'), `${chosen}`);
  assert.equal(await page.$('[data-testid=columns-hidden]'), null, 'the note goes with the defaults');
  await page.click('[data-testid=columns] button');
  assert.deepEqual(await headers(), shown);
});

test('one view per paper family: tabs, routes that Back follows, and Run in two keys through the skip link', async () => {
  const page = await open('#/kkor');
  await assertOnView(page, 'kkor');
  await page.click('[data-testid=tab-sf]');
  await assertOnView(page, 'sf');
  assert.match(page.url(), /#\/sf$/);
  await page.goBack();
  await assertOnView(page, 'kkor');
  await page.click('[data-testid=tab-scheduling]');
  await assertOnView(page, 'scheduling');
  // An unknown route keeps the view; the demo still ran in the scheduling view.
  await page.evaluate(() => { location.hash = '#/nowhere'; });
  await assertOnView(page, 'scheduling');
  await waitResults(page, 5);

  // The keyboard: the first Tab reaches the skip link, Enter puts the focus on the view's
  // Run button, in view and not under the sticky bar.
  for (const [route, run] of [['', 'run'], ['#/kkor', 'kkor-run'], ['#/sf', 'sf-run']]) {
    const p = await open(route);
    await p.waitForSelector('[data-testid=skip-to-run]', { state: 'attached' });
    await p.keyboard.press('Tab');
    assert.equal(await p.evaluate(() => document.activeElement.dataset.testid), 'skip-to-run', route);
    assert.ok(await p.isVisible('[data-testid=skip-to-run]'), 'the focused skip link shows');
    await p.keyboard.press('Enter');
    await p.waitForFunction((run) => document.activeElement?.dataset.testid === run, run);
    const inView = await p.evaluate(() => { const r = document.activeElement.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; });
    assert.ok(inView, `${run} is in the window`);
    assert.ok(!/#main/.test(p.url()), 'the skip link leaves the address alone');
  }
  // Arrow keys and type-ahead on a closed preset list do not load a preset at every key.
  for (const [route, list, first] of [['', 'scenario-preset', 'demo'], ['#/kkor', 'kkor-preset', '0'], ['#/sf', 'sf-preset', '0']]) {
    const p = await open(route);
    await p.focus(`[data-testid=${list}]`);
    for (const key of ['ArrowDown', 'ArrowDown', 'End', 's']) await p.keyboard.press(key);
    assert.equal(await p.inputValue(`[data-testid=${list}]`), first, `${list} moved with the keys`);
  }
});

test('the docs ship with the page as rendered pages, linked from the help texts and from each view', async () => {
  const page = await open('#/ses');
  // The view's doc, opened beside the page (the scenario stays as it is).
  const [doc] = await Promise.all([page.waitForEvent('popup'), page.click('[data-testid=view-doc]')]);
  await doc.waitForLoadState();
  assert.match(doc.url(), /\/docs\/ses\.html$/);
  assert.match(await doc.textContent('h1'), /^SES — node-group selection/);
  assert.ok((await doc.$$('table')).length > 0, 'its tables are rendered');
  // Links between docs lead to pages, never to markdown.
  const hrefs = await doc.$$eval('main a[href]', (as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.every((h) => !/\.md(#|$)/.test(h)), `markdown links left: ${hrefs.filter((h) => /\.md/.test(h))}`);
  // A help text that names a doc links to its page.
  const named = await page.$$eval('#view-ses a.doc-link', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
  // (Before a run the view has no "Export for a cluster", so no docs/cluster.md link yet.)
  assert.deepEqual(named, [['docs/ses.md', 'docs/ses.html']]);
  // Every doc of the index opens.
  const index = await (await page.request.get(new URL('docs/index.json', page.url()).href)).json();
  for (const f of index.filter((f) => f.endsWith('.html'))) {
    const res = await page.request.get(new URL(`docs/${f}`, page.url()).href);
    assert.equal(res.status(), 200, f);
  }
});

test('a dropped SWF trace gives the CLI numbers, with its import report', async () => {
  const page = await open();
  await waitResults(page, 5);
  const t0 = Date.now();
  await dropFiles(page, [{ name: path.basename(SDSC), bytes: fs.readFileSync(SDSC) }]);
  await page.waitForSelector('[data-testid=import-report]');
  await page.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('SDSC'), null, { timeout: 60_000 });
  const rows = await waitResults(page, 5, 120_000);
  console.log(`# SDSC-SP2, all five policies in the page: ${Date.now() - t0} ms from drop to results`);
  assertSameNumbers(rows, cli(['simulate', SDSC, '--policy', 'all']));
  const report = await page.textContent('[data-testid=import-report]');
  assert.match(report, /accepted jobs:\s+54034/);

  // Share it: the URL holds the scenario and the file's hash; a new page asks for the file.
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  assert.match(url, /#s1=[A-Za-z0-9_-]+$/);
  const again = await open(url);
  await again.waitForSelector('[data-testid=needed-files]');
  assert.match(await again.textContent('[data-testid=needed-files]'), /SDSC-SP2-1998-4\.2-cln\.swf\.gz/);
  // The wrong file is refused ...
  await again.setInputFiles('[data-testid=file-input]', OTHER);
  await again.waitForSelector('[data-testid=error]');
  assert.match(await again.textContent('[data-testid=error]'), /not the file the shared scenario was made with/);
  assert.equal(await again.$$eval('[data-testid=results] tbody tr', (r) => r.length), 0);
  // ... the right one runs the same scenario to the same numbers.
  await again.setInputFiles('[data-testid=file-input]', SDSC);
  assertSameNumbers(await waitResults(again, 5, 120_000), rows);
});

test('a picked file with one algorithm chosen matches `simulate --policy easy`', async () => {
  const page = await open();
  await waitResults(page, 5);
  for (const p of ['fcfs', 'conservative', 'sjf', 'firstfit']) await page.click(`[data-testid=alg-${p}]`);
  await page.setInputFiles('[data-testid=file-input]', SDSC);
  await page.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('SDSC'), null, { timeout: 60_000 });
  const rows = await waitResults(page, 1, 60_000);
  assertSameNumbers(rows, cli(['simulate', SDSC, '--policy', 'easy']));
  // Export the per-job CSV of that run.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Export per-job CSV')]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  // SDSC-SP2 records its jobs' waits (field 3): the run is set against them, and the CSV
  // carries each job's, as `simulate --vs-log --jobs` writes it.
  assert.ok(csv.startsWith('job_id,home,site,submit,start,end,procs,logged_wait\n'), csv.slice(0, 80));
  const lines = csv.trim().split('\n');
  assert.equal(lines.length, 54035);
  assert.ok(lines.slice(1).every((l) => /,\d+(\.\d+)?$/.test(l)), 'every job has its logged wait');
});

test('a shared generator scenario re-runs to identical numbers', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.fill('#f-seed', '7');
  await page.press('#f-seed', 'Tab');
  await page.fill('#f-jobs', '800');
  await page.press('#f-jobs', 'Tab');
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('800 jobs'));
  const rows = await waitResults(page, 5);
  await page.click('text=Share');
  const url = await page.textContent('[data-testid=share-url]');
  const again = await open(url);
  await again.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('800 jobs'));
  assertSameNumbers(await waitResults(again, 5), rows);
  assert.equal(await again.inputValue('#f-seed'), '7');
});

test('custom sites from the editor give the CLI numbers for the same scenario', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.selectOption('[data-testid=platform]', 'sites');
  await page.fill('input[aria-label=nodes]', '40');
  await page.press('input[aria-label=nodes]', 'Tab');
  await page.fill('input[aria-label="CPUs per node"]', '4');
  await page.press('input[aria-label="CPUs per node"]', 'Tab');
  await page.selectOption('select[aria-label=allocation]', 'node');
  await page.selectOption('[data-testid=estimates]', 'exact');
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=run-info]')?.textContent.includes('explicit sites'));
  const rows = await waitResults(page, 5);
  const scenario = {
    version: 1, name: 'custom', seed: 1,
    platform: { kind: 'sites', name: 'custom', sites: [{ name: 'cluster', nodes: 40, cpus_per_node: 4, speed: 1.0, allocation: 'node' }] },
    workload: { kind: 'ses_poisson', estimate_factor: 2.0 },
    algorithms: POLICIES.map((local) => ({ local })),
    options: { estimates: 'exact', kill_at_estimate: true },
  };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-')), 'custom.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  assertSameNumbers(rows, cli(['run', file]));
});

test('a malformed file gives a readable error and leaves the page working', async () => {
  const page = await open();
  const before = await waitResults(page, 5);
  await dropFiles(page, [{ name: 'garbage.swf', bytes: Buffer.from('hello world\nthis is not a workload\n') }]);
  await page.waitForSelector('[data-testid=error]');
  assert.match(await page.textContent('[data-testid=error]'), /Cannot use garbage\.swf: .*no job/);
  assert.match(await page.textContent('[data-testid=file-error]'), /malformed lines:\s+2/);
  assertSameNumbers(await readResults(page), before);
  await page.click('[data-testid=run]');
  assertSameNumbers(await waitResults(page, 5), before);
});

test('a malformed or oversized fragment gives a message and the default scenario', async () => {
  const demo = cli(['run', '--preset', 'demo']);
  for (const [hash, msg] of [
    ['#s1=not*base64!', /damaged/],
    ['#s1=AAAAAAAA', /damaged|does not hold/],
    [`#s1=${'A'.repeat(40000)}`, /too large/],
    ['#s7=abc', /share format/],
  ]) {
    const page = await open(hash);
    await page.waitForSelector('[data-testid=error]');
    assert.match(await page.textContent('[data-testid=error]'), msg);
    assertSameNumbers(await waitResults(page, 5), demo);
  }
});

test('results stream in per algorithm, the page answers during a run, cancel stops it', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.fill('#f-jobs', '1000000');
  await page.press('#f-jobs', 'Tab');
  await page.click('[data-testid=run]');
  // The first algorithm's row appears while the others still run.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=results] tbody tr').length >= 1
    && document.querySelector('[data-testid=status]').textContent.startsWith('running'), null, { timeout: 60_000 });
  assert.equal(await page.isEnabled('[data-testid=cancel]'), true);
  // The page's thread is free: a round trip and a UI change are quick.
  await assertResponsive(page, ' during a run');
  // Text typed into a field survives the re-renders the run's progress causes (every 200 ms)
  // until it is committed: the page once put the old value back under the user's typing.
  await page.fill('#f-jobs', '2000');
  await page.waitForTimeout(700);
  assert.equal(await page.inputValue('#f-jobs'), '2000', 'typed text kept through progress re-renders');
  await page.click('[data-testid=cancel]');
  await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('cancelled'));
  assert.equal(await page.isDisabled('[data-testid=cancel]'), true);
  assert.ok(!(await page.textContent('[data-testid=status]')).startsWith('running'));
  // A new run on the fresh worker completes.
  await page.fill('#f-jobs', '2000');
  await page.press('#f-jobs', 'Tab');
  await page.click('[data-testid=run]');
  const again = await waitResults(page, 5);
  // Said before the check: a run of the wrong scenario shows here. (Clean-clone CI runs twice
  // showed the 1,000,000-job run's numbers: the typed 2000 had been put back by a progress
  // re-render before it was committed — fixed by DraftInput, checked above during the run.)
  console.log(`# after the cancel: ${await page.textContent('[data-testid=run-info]')} | ${await page.textContent('[data-testid=status]')}`);
  assertSameNumbers(again, cli(['run', '--preset', 'demo']));
});

test('a dropped trace is fitted to the hyper-Erlang model with the CLI classes (SOB §3.1)', async () => {
  const KTH = path.join(repoRoot, '..', 'shared', 'traces', 'KTH-SP2-1996-2.1-cln.swf.gz');
  const page = await open();
  await waitResults(page, 5);
  await dropFiles(page, [{ name: path.basename(KTH), bytes: fs.readFileSync(KTH) }]);
  await page.waitForSelector('[data-testid=fit-run]:not([disabled])', { timeout: 60_000 });
  await page.fill('[data-testid=fit-cpn]', '1');
  await page.press('[data-testid=fit-cpn]', 'Tab');
  const t0 = Date.now();
  await page.click('[data-testid=fit-run]');
  await page.waitForSelector('[data-testid=fit][data-cpn="1"]', { timeout: 180_000 });
  console.log(`# KTH-SP2 hyper-Erlang fit in the page: ${Date.now() - t0} ms from click to table`);
  const synthOut = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-fit-')), 'synthetic.swf');
  const want = JSON.parse(execFileSync(CLI, ['fit', KTH, '--cpus-per-node', '1', '--out', synthOut, '--json'], { maxBuffer: 64 << 20 }).toString());
  const rows = await page.$$eval('[data-testid=fit] tbody tr', (t) => t.map((r) => ({
    nmin: Number(r.dataset.nmin), nmax: Number(r.dataset.nmax), jobs: Number(r.dataset.jobs),
    ia: Number(r.querySelector('td[data-key=ia-sample-1]').dataset.value),
    svc: Number(r.querySelector('td[data-key=svc-sample-1]').dataset.value),
  })));
  assert.ok(want.classes.length > 1);
  assert.deepEqual(rows.map(({ nmin, nmax, jobs }) => ({ nmin, nmax, jobs })),
    want.classes.map((c) => ({ nmin: c.class.nmin, nmax: c.class.nmax, jobs: c.jobs })));
  assert.deepEqual(rows.map((r) => [r.ia, r.svc]), want.classes.map((c) => [c.interarrival.sample[0], c.service.sample[0]]));
  // Goodness of fit: the Kolmogorov–Smirnov distances equal the CLI's, per class and pooled.
  const pooled = Number(await page.getAttribute('[data-testid=fit-quality]', 'data-pooled'));
  assert.equal(pooled, want.quality.pooled_service_ks);
  const ks = await page.$$eval('[data-testid=fit-quality] tbody tr', (t) => t.map((r) => [...r.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))));
  assert.deepEqual(ks, want.quality.classes.map((c) => [c.interarrival_ks, c.service_ks]));
  console.log(`# KTH-SP2 fit: pooled run-time KS distance ${pooled.toFixed(3)}`);

  // The fitted model beside the trace: a synthetic workload drawn in the worker (the CLI's
  // draw: same seed, same horizon, same jobs) and the CDFs of both.
  const counts = await page.$eval('[data-testid=fit-counts]', (e) => ({
    original: Number(e.dataset.original), synthetic: Number(e.dataset.synthetic), seed: Number(e.dataset.seed), horizon: Number(e.dataset.horizon),
  }));
  console.log(`# KTH-SP2 fit, 1 CPU per node: trace ${counts.original} jobs, synthetic ${counts.synthetic} jobs (seed ${counts.seed}, horizon ${counts.horizon} s)`);
  assert.equal(counts.original, want.trace_jobs);
  assert.equal(counts.synthetic, want.synthetic_jobs);
  assert.equal(counts.horizon, want.horizon_s);
  const ratio = counts.synthetic / counts.original;
  assert.ok(ratio > 0.7 && ratio < 1.3, `synthetic/original = ${ratio}`);
  assert.equal(await page.$('[data-testid=fit-synthetic-error]'), null);
  await page.waitForTimeout(300);
  for (const id of ['chart-fit-interarrival', 'chart-fit-runtime', 'chart-fit-procs']) {
    const ink = await canvasInk(page, id);
    assert.ok(ink > 0.02, `${id} looks blank (${ink})`);
  }
  const cdf = page.locator('[data-testid=chart-fit-runtime]');
  const box = await cdf.boundingBox();
  await cdf.hover({ position: { x: box.width * 0.6, y: box.height * 0.5 } });
  await page.waitForFunction(() => /trace [\d.]+ %, fitted model [\d.]+ %/.test(document.querySelector('[data-testid=chart-fit-runtime-hover]').textContent));
  if (process.env.SCREENSHOT_DIR) {
    await page.locator('.fit-charts').screenshot({ path: path.join(process.env.SCREENSHOT_DIR, 'fit-cdfs.png') });
  }
  // The synthetic SWF is the CLI's `fit --out`, byte for byte.
  const [swf] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=fit-download]')]);
  assert.match(swf.suggestedFilename(), /^KTH-SP2-1996-2\.1-cln\.fit-cpn1-seed1\.swf$/);
  assert.equal(fs.readFileSync(await swf.path(), 'utf8'), fs.readFileSync(synthOut, 'utf8'));

  // The maximum-likelihood option: the CLI's fit and distances, much closer to the trace.
  await page.selectOption('[data-testid=fit-method]', 'max_likelihood');
  await page.click('[data-testid=fit-run]');
  await page.waitForSelector('[data-testid=fit][data-method=max_likelihood]', { timeout: 180_000 });
  const ml = JSON.parse(execFileSync(CLI, ['fit', KTH, '--cpus-per-node', '1', '--method', 'max_likelihood', '--json'], { maxBuffer: 64 << 20 }).toString());
  assert.equal(ml.method, 'max_likelihood');
  const pooledMl = Number(await page.getAttribute('[data-testid=fit-quality]', 'data-pooled'));
  assert.equal(pooledMl, ml.quality.pooled_service_ks);
  assert.ok(pooledMl < pooled / 2, `maximum likelihood ${pooledMl} vs moments ${pooled}`);
  console.log(`# KTH-SP2 fit by maximum likelihood: pooled run-time KS distance ${pooledMl.toFixed(3)}`);
});

test('after one visit the page opens and runs offline (service worker), and is installable', async () => {
  const own = await serve();
  try {
    const page = await newPage();
    await page.goto(own.url);
    await waitResults(page, 5);
    const first = await readResults(page);
    // The service worker has cached the app's files once it controls the page.
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel=manifest]').href)).json());
    assert.equal(manifest.short_name, 'Gridscope');
    assert.equal(manifest.display, 'standalone');
    // The server goes away: every connection is dropped. The page still opens, its worker
    // still starts, and the default scenario gives the same numbers.
    own.setDown(true);
    await page.reload();
    await waitResults(page, 5);
    assertSameNumbers(await readResults(page), first);
    // The docs pages the help texts link to were kept too.
    const [doc] = await Promise.all([page.waitForEvent('popup'), page.click('[data-testid=view-doc]')]);
    await doc.waitForLoadState();
    assert.match(await doc.textContent('h1'), /^Local schedulers, the engine's rules/);
  } finally {
    own.setDown(false);
    await own.close();
  }
});

test('no request left 127.0.0.1 and nothing was logged as an error', () => {
  assertCleanPages(pages, 8);
});
