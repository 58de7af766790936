// Hostile inputs run through the page, measured (issue #30): a conservative backlog link
// (50,000 jobs at 20× load), the largest SF sweep the limits allow and a dropped gzip bomb.
// Each must get a clear message, keep the page responsive (the longest main-thread task,
// from a PerformanceObserver for 'longtask'), stop within a second of Cancel, keep the tab's
// memory bounded (the main thread's JS heap from CDP Performance.getMetrics; the resident
// memory of every browser process, tab and workers, from /proc) — and the next normal run
// must give the CLI's numbers. The numbers are printed (`# …` lines) for the notes.
// Also here: a worker that dies says why and offers the last good scenario; the limits
// section lists what `gridscope help limits` lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync, spawnSync } from 'node:child_process';
import { repoRoot, pageSuite, assertCleanPages, assertResponsive, assertSameNumbers, waitResults, dropFiles } from './harness.mjs';

const CLI = path.join(repoRoot, 'target', 'release', process.platform === 'win32' ? 'gridscope.exe' : 'gridscope');
const suite = pageSuite();
const { pages } = suite;
const MB = 1 << 20;

function pack(prefix, value) {
  return `#${prefix}${zlib.deflateRawSync(Buffer.from(JSON.stringify(value)), { level: 9 }).toString('base64url')}`;
}

function cliJson(args) {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`cargo build --release\` first`);
  return JSON.parse(execFileSync(CLI, [...args, '--json'], { maxBuffer: 64 << 20 }).toString());
}

const metricsOf = (report) => Object.fromEntries(report.runs.map((r) => [r.label, r.metrics]));

/** Resident memory (bytes) of every process below this one: the test's browser, its tab
 *  and workers (other test files run in processes of their own). Linux; 0 elsewhere. */
function browserRss() {
  if (!fs.existsSync('/proc/self/stat')) return 0;
  const parent = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const mine = (pid) => { for (let p = parent.get(pid); p; p = parent.get(p)) if (p === process.pid) return true; return false; };
  let total = 0;
  for (const pid of parent.keys()) {
    if (!mine(pid)) continue;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch { /* gone */ }
  }
  return total;
}

// Every long task of the page's main thread, from the start (buffered).
const LONG_TASKS = `window.__longTasks = [];
try {
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
} catch (e) { window.__longTasks = null; }`;

/** Opens the app at `hash` with its meters: long tasks, JS heap and browser memory sampled
 *  every 200 ms until `stop()`. */
async function openMeasured(hash = '') {
  const page = await suite.newPage();
  await page.addInitScript(LONG_TASKS);
  await page.goto(suite.server.url + hash);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const meter = { peakHeap: 0, peakRss: 0, startRss: browserRss() };
  const sample = async () => {
    try {
      const { metrics } = await cdp.send('Performance.getMetrics');
      meter.peakHeap = Math.max(meter.peakHeap, metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0);
    } catch { /* page closing */ }
    meter.peakRss = Math.max(meter.peakRss, browserRss());
  };
  const timer = setInterval(sample, 200);
  timer.unref(); // a failed test must not keep the file's process alive
  meter.stop = async () => { clearInterval(timer); await sample(); };
  page.meter = meter;
  return page;
}

/** The longest main-thread task (ms) since `since` (a performance.now() of the page). */
async function longestSince(page, since) {
  const tasks = await page.evaluate(() => window.__longTasks);
  assert.ok(Array.isArray(tasks), 'this browser reports no long tasks');
  const after = tasks.filter(([start]) => start >= since);
  if (after.length) console.log(`# long tasks (ms after the start of the measure: duration): ${after.map(([s, d]) => `${(s - since).toFixed(0)}: ${d.toFixed(0)}`).join(', ')}`);
  return after.reduce((m, [, d]) => Math.max(m, d), 0);
}

const now = (page) => page.evaluate(() => performance.now());

/** Prints the numbers and holds them to the issue's bounds. */
function report(name, { longest, cancelMs, meter }) {
  const mb = (b) => (b / MB).toFixed(0);
  console.log(`# ${name}: longest main-thread task ${longest.toFixed(0)} ms; Cancel ${cancelMs === undefined ? 'n/a' : `${cancelMs} ms`}; peak JS heap ${mb(meter.peakHeap)} MB; browser processes' resident memory peak ${mb(meter.peakRss)} MB (${mb(meter.startRss)} MB at load)`);
  // A freeze guard, not a speed test (speed is benches/browser.mjs's): a frozen tab blocks
  // for seconds. The largest sweep's start measured 60–138 ms alone on 2 cores, but 227 and
  // 228 ms late in the full suite (browser memory ~1.5 GB) and 358 ms under a parallel
  // build, so 200 ms failed runs that froze nothing.
  assert.ok(longest < 500, `${name}: a main-thread task of ${longest} ms`);
  if (cancelMs !== undefined) assert.ok(cancelMs < 1000, `${name}: Cancel took ${cancelMs} ms`);
  assert.ok(meter.peakHeap < 256 * MB, `${name}: JS heap ${mb(meter.peakHeap)} MB`);
  if (meter.startRss) assert.ok(meter.peakRss - meter.startRss < 1536 * MB, `${name}: memory grew ${mb(meter.peakRss - meter.startRss)} MB`);
}

/** Clicks the scheduling Cancel and waits until the run is stopped for good: the worker
 *  confirmed (or the page replaced it); returns the milliseconds. */
async function cancelRun(page) {
  const t0 = Date.now();
  await page.click('[data-testid=cancel]');
  await page.waitForFunction(() => {
    const s = document.querySelector('[data-testid=status]');
    return document.querySelector('[data-testid=notice]')?.textContent.includes('cancelled')
      && s.dataset.cancelling === '0' && !s.textContent.startsWith('running');
  }, null, { polling: 10, timeout: 30_000 });
  return Date.now() - t0;
}

/** The demo again, as a visitor would after a hostile input: its numbers are the CLI's. */
async function demoAgain(page) {
  await page.selectOption('[data-testid=scenario-preset]', 'demo');
  await page.click('[data-testid=run]');
  const rows = await waitResults(page, 5, 120_000);
  assertSameNumbers(rows, metricsOf(cliJson(['run', '--preset', 'demo'])));
}

// Estimates twice the run times: every early end moves the queue up, some 10¹⁴ steps.
const BACKLOG = {
  version: 2, name: 'conservative backlog', seed: 1,
  platform: { kind: 'preset', name: 'demo' },
  workload: { kind: 'ses_poisson', jobs: 50_000, load_factor: 20, estimate_factor: 2 },
  algorithms: [{ local: 'conservative' }],
};

test('the same backlog with exact estimates runs unasked (nothing moves up: about a second of plan work) and gives the CLI numbers', async () => {
  const exact = { ...BACKLOG, name: 'exact backlog', workload: { ...BACKLOG.workload, estimate_factor: 1 } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-exact-'));
  fs.writeFileSync(path.join(dir, 'exact.json'), JSON.stringify(exact));
  const cli = metricsOf(cliJson(['run', path.join(dir, 'exact.json')]));
  const page = await openMeasured(pack('s1=', { scenario: exact, files: [] }));
  const since = await now(page);
  const rows = await waitResults(page, 1, 120_000);
  assert.equal(await page.$('[data-testid=confirm]'), null, 'it asked first');
  const longest = await longestSince(page, since);
  await page.meter.stop();
  report('exact-estimate backlog link, 50,000 jobs at 20x', { longest, meter: page.meter });
  assertSameNumbers(rows, cli);
});

test('a conservative backlog link (50,000 jobs at 20× load, estimates twice the run times) asks first, runs without freezing the tab, cancels within a second', async () => {
  // The CLI stops the same scenario at its plan-work limit (here lowered to stay quick).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gridscope-backlog-'));
  fs.writeFileSync(path.join(dir, 'backlog.json'), JSON.stringify(BACKLOG));
  const cli = spawnSync(CLI, ['run', path.join(dir, 'backlog.json'), '--max-plan-work', '1000000000'], { encoding: 'utf8' });
  assert.equal(cli.status, 1, cli.stderr);
  assert.match(cli.stderr, /more than 1,000,000,000 steps of work conservative backfilling/);

  const page = await openMeasured(pack('s1=', { scenario: BACKLOG, files: [] }));
  await page.waitForSelector('[data-testid=confirm]', { timeout: 30_000 });
  const ask = await page.textContent('[data-testid=confirm]');
  assert.match(ask, /conservative backfilling/);
  assert.match(ask, /plan work/);
  const since = await now(page);
  await page.waitForTimeout(1000);
  assert.ok(!(await page.textContent('[data-testid=status]')).startsWith('running'), 'it started unasked');
  await page.click('[data-testid=confirm-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'), null, { timeout: 30_000 });
  // The page answers while it plans (the whole run takes about 3 s: Cancel comes first).
  await assertResponsive(page, ' during the backlog');
  const cancelMs = await cancelRun(page);
  const longest = await longestSince(page, since);
  await page.meter.stop();
  report('conservative backlog link, 50,000 jobs at 20x', { longest, cancelMs, meter: page.meter });
  await demoAgain(page);
});

test('the largest sweep the limits allow asks first, runs, cancels within a second, and a small sweep after it gives the CLI numbers', async () => {
  const small = cliJson(['run', '--preset', 'sf-batch', '--seeds', '1', '--batches', '300']);
  // 834 jobs a (seed, batch) summed over the points and policies (hostile.test.mjs): the
  // most batches of 30 seeds within the sweep limit of 10⁹ jobs.
  const batches = Math.floor(1e9 / (834 * 30));
  const page = await openMeasured(pack('w1=', { spec: small.spec, seeds: 30, batches }));
  await page.waitForSelector('[data-testid=sf-notice]', { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid=sf-notice]'), /would simulate about 1,000,000,000 jobs|would simulate about 999,999,360 jobs|press Run to start it/);
  assert.equal(await page.$('[data-testid=sf-error]'), null, 'refused though within the limit');
  const since = await now(page);
  await page.click('[data-testid=sf-run]');
  console.log(`# sweep: Run clicked at ${((await now(page)) - since).toFixed(0)} ms`);
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=sf-progress]').value) > 0, null, { timeout: 60_000 });
  await page.waitForTimeout(3000);
  const t0 = Date.now();
  console.log(`# sweep: Cancel clicked at ${((await now(page)) - since).toFixed(0)} ms`);
  await page.click('[data-testid=sf-cancel]');
  await page.waitForFunction(() => document.querySelector('[data-testid=sf-cancel]').disabled
    && /cancelled/.test(document.querySelector('[data-testid=sf-notice]')?.textContent), null, { polling: 10 });
  const cancelMs = Date.now() - t0;
  const longest = await longestSince(page, since);
  await page.meter.stop();
  report(`largest sweep within the limits (30 seeds × ${batches} batches)`, { longest, cancelMs, meter: page.meter });
  // The next sweep: one seed of 300 batches, the CLI's medians.
  for (const [id, v] of [['#sf-seeds', '1'], ['#sf-batches', '300']]) {
    await page.fill(id, v);
    await page.press(id, 'Tab');
  }
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  const table = await page.$$eval('[data-testid=sf-table] tbody tr', (rows) => rows.map((r) => [r.dataset.policy, [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))]));
  assert.deepEqual(table, [...small.series.map((s) => [s.policy, s.median]), ['gap', small.gap]]);
});

/** A gzip bomb of SWF text: 65 gzip members of 64 MiB of blank lines each, 4.2 MB of file
 *  inflating to 4.06 GiB, past the inflated-bytes limit of 4 GiB. */
function gzipBomb() {
  const member = zlib.gzipSync(Buffer.alloc(64 * MB, '\n'), { level: 9 });
  return Buffer.concat(Array.from({ length: 65 }, () => member));
}

test('a dropped gzip bomb is refused by its inflated size, the page responsive and its memory bounded', async () => {
  const bomb = gzipBomb();
  assert.ok(bomb.length < 5 * MB, `${bomb.length} bytes`);
  const page = await openMeasured();
  await waitResults(page, 5);
  // Measured from after the drop: the drop's own task is the test building a 4.2 MB File
  // from base64 in the page (a visitor's drop hands the browser a file without that).
  await dropFiles(page, [{ name: 'bomb.swf.gz', bytes: bomb }]);
  const since = await now(page);
  await assertResponsive(page, ' while the bomb inflates');
  await page.waitForSelector('[data-testid=error]', { timeout: 180_000 });
  assert.match(await page.textContent('[data-testid=error]'), /bomb\.swf\.gz.*more than 4,294,967,296 bytes of SWF text one gzip file inflates to/);
  assert.doesNotMatch(await page.textContent('[data-testid=error]'), /--max/);
  const longest = await longestSince(page, since);
  await page.meter.stop();
  report('dropped gzip bomb (4.2 MB inflating to 4.06 GiB)', { longest, meter: page.meter });
  await demoAgain(page);
});

/** A gzip bomb of GWF text, a format read whole: a GWF header, then 18 members of 64 MiB of
 *  blank lines (1.1 GiB inflated, under the 4 GiB limit but past what the page holds). */
function gwfBomb() {
  const head = zlib.gzipSync(Buffer.from('# JobID SubmitTime WaitTime RunTime NProcs AverageCPUTimeUsed Used Memory ReqNProcs ReqTime ReqMemory Status UserID GroupID ExecutableID QueueID PartitionID OrigSiteID LastRunSiteID JobStructure JobStructureParams UsedNetwork UsedLocalDiskSpace UsedResources ReqPlatform ReqNetwork ReqLocalDiskSpace ReqResources VOID ProjectID\n'));
  const member = zlib.gzipSync(Buffer.alloc(64 * MB, '\n'), { level: 9 });
  return Buffer.concat([head, ...Array.from({ length: 18 }, () => member)]);
}

test('a dropped gzip bomb of a format read whole is an error that names the format, not a dead worker', async () => {
  const page = await suite.open();
  await waitResults(page, 5);
  await dropFiles(page, [{ name: 'bomb.gwf.gz', bytes: gwfBomb() }]);
  await page.waitForSelector('[data-testid=error]', { timeout: 180_000 });
  const error = await page.textContent('[data-testid=error]');
  assert.match(error, /bomb\.gwf\.gz: inflates to more text than fits in memory at once \(stopped after 1,?073,?\d{3},?\d{3} bytes\): GWF, Batsim JSON and sacct files are read whole/);
  assert.equal(await page.$('[data-testid=worker-died]'), null, 'the worker lived to say it');
  await demoAgain(page);
});

test('a worker that dies says why and offers to reload the last scenario that ran well', async () => {
  const page = await suite.open();
  await waitResults(page, 5);
  // Another scenario, running when the worker dies.
  await page.selectOption('[data-testid=scenario-preset]', 'sob-synthetic-light');
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'));
  // The death: an uncaught WebAssembly trap in the engine worker's global scope — the
  // path a Rust panic or a failed allocation takes in wasm (both end in `unreachable`),
  // raised from outside because no input is known to kill the engine. Test-only: the
  // page has no such trigger.
  const worker = page.workers().find((w) => /worker_loader\.js$/.test(w.url()));
  assert.ok(worker, `no engine worker among ${page.workers().map((w) => w.url())}`);
  await worker.evaluate(() => setTimeout(() => { throw new WebAssembly.RuntimeError('unreachable'); }, 0));
  await page.waitForSelector('[data-testid=worker-died]', { timeout: 30_000 });
  const said = await page.textContent('[data-testid=worker-died]');
  assert.match(said, /The engine worker died: it stopped on an internal error — a WebAssembly trap/);
  assert.match(said, /RuntimeError: unreachable/);
  assert.ok(!(await page.textContent('[data-testid=status]')).startsWith('running'), 'still says running');
  const reload = page.locator('[data-testid=reload-last-good]');
  assert.match(await reload.textContent(), /^Reload the last good scenario \(demo: /);
  await reload.click();
  const rows = await waitResults(page, 5, 120_000);
  assertSameNumbers(rows, metricsOf(cliJson(['run', '--preset', 'demo'])));
  assert.equal(await page.$('[data-testid=worker-died]'), null);
  // The death is the test's doing, not the page's: its report is left out of the last check.
  pages.splice(pages.indexOf(page), 1);
});

test('the limits section lists every limit `gridscope help limits` lists, with its default and largest real input', async () => {
  const help = execFileSync(CLI, ['help', 'limits'], { encoding: 'utf8' });
  const want = help.split('\n').filter((l) => l.startsWith('--max')).map((l) => {
    const [, flag, value, rest] = /^(--max-[a-z-]+)\s+([\d,]+)\s+(.*)$/.exec(l);
    return { flag, value: Number(value.replaceAll(',', '')), rest };
  });
  assert.ok(want.length >= 9, help);
  const page = await suite.open();
  await waitResults(page, 5);
  await page.click('[data-testid=limits-link]');
  await page.waitForFunction(() => document.querySelector('[data-testid=limits]').open);
  const inView = await page.$eval('[data-testid=limits]', (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; });
  assert.ok(inView, 'the limits section is not in view');
  assert.doesNotMatch(page.url(), /#limits/, 'the address (maybe a share link) was changed');
  const rows = await page.$$eval('[data-testid=limits] tbody tr', (trs) => trs.map((tr) => {
    const td = tr.querySelectorAll('td');
    return { flag: tr.dataset.flag, value: Number(td[1].dataset.value), what: td[0].textContent, largest: td[2].textContent };
  }));
  assert.deepEqual(rows.map((r) => r.flag), want.map((w) => w.flag));
  for (const [i, w] of want.entries()) {
    assert.equal(rows[i].value, w.value, w.flag);
    // The CLI's line: the largest real input, then what it bounds.
    const squeeze = (t) => t.trim().replace(/\s+/g, ' ');
    assert.equal(squeeze(w.rest), squeeze(`${rows[i].largest} ${rows[i].what}`), w.flag);
  }
});

test('no page of this file left 127.0.0.1 or logged an error', () => {
  assertCleanPages(pages, 4);
});
