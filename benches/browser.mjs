// Times the browser app on the release build in dist/: the demo from navigation to results,
// SDSC-BLUE (243,314 jobs; another trace as the first argument) with all five policies from
// drop to results (plus the worker's own run time and the longest main-thread task),
// next to the native CLI on the same trace, and one full SF sweep preset at the CLI's
// defaults (10 seeds × 20,000 batches; SWEEP=sf-batch by default) in the page and natively,
// and a 1,000,000-job Lublin–Feitelson workload under every policy. `node benches/browser.mjs` after
// `trunk build --release --offline` and `cargo build --release`.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { serve, launch, newPage, waitResults, dropFiles, repoRoot, traces, dist } from '../tests/browser/harness.mjs';

const trace = path.join(traces, process.argv[2] || 'SDSC-BLUE-2000-4.2-cln.swf.gz');
// The page's main-thread tasks over 50 ms (a long one is a page that does not answer):
// `longestSince(p, t)` is the longest that started at or after `t` (page clock, ms).
const watchLongTasks = (p) => p.addInitScript(() => {
  window.__tasks = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__tasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
});
const longestSince = (p, t) => p.evaluate((t) => Math.max(0, ...window.__tasks.filter(([s]) => s >= t).map(([, d]) => d)), t);
const server = await serve();
const browser = await launch();
const status = (page) => page.textContent('[data-testid=status]');

for (const f of fs.readdirSync(dist).filter((f) => f.endsWith('.wasm'))) {
  const raw = fs.readFileSync(path.join(dist, f));
  console.log(`${f}: ${(raw.length / 1024).toFixed(0)} KiB, ${(zlib.gzipSync(raw, { level: 9 }).length / 1024).toFixed(0)} KiB gzipped`);
}
for (let i = 0; i < 3; i++) {
  const page = await newPage(browser);
  const t0 = Date.now();
  await page.goto(server.url);
  await waitResults(page, 5);
  console.log(`demo: results ${Date.now() - t0} ms after navigation (worker: ${await status(page)})`);
  await page.close();
}
const page = await newPage(browser);
await watchLongTasks(page);
await page.goto(server.url);
await waitResults(page, 5);
const bytes = fs.readFileSync(trace);
{
  // The file is made in the page first (decoding it there is the harness's work, a long
  // task of its own), then dropped.
  await page.evaluate(({ name, b64 }) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    window.__drop = new DataTransfer();
    window.__drop.items.add(new File([u8], name));
  }, { name: path.basename(trace), b64: bytes.toString('base64') });
  const t0 = Date.now();
  const since = await page.evaluate(() => {
    const t = performance.now();
    const target = document.querySelector('main') || document.body;
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: window.__drop, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: window.__drop, bubbles: true, cancelable: true }));
    return t;
  });
  await page.waitForFunction((n) => document.querySelector('[data-testid=run-info]')?.textContent.includes(n), path.basename(trace).split('.')[0]);
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('done'), null, { timeout: 600_000 });
  await waitResults(page, 5, 600_000);
  const took = Date.now() - t0;
  await page.waitForTimeout(1000); // the Gantt chart is drawn after the results
  const longest = await longestSince(page, since);
  console.log(`${path.basename(trace)}, all policies: ${took} ms from drop to results, import included (worker run: ${await status(page)}); longest main-thread task ${longest.toFixed(0)} ms`);
}
for (let i = 0; i < 2; i++) {
  const t0 = Date.now();
  await page.click('[data-testid=run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('done'), null, { timeout: 600_000 });
  console.log(`  run again: ${Date.now() - t0} ms from click to results (worker run: ${await status(page)})`);
}
const cli = path.join(repoRoot, 'target', 'release', 'gridscope');
for (let i = 0; i < 3; i++) {
  const t0 = process.hrtime.bigint();
  execFileSync(cli, ['simulate', trace, '--policy', 'all']);
  console.log(`native CLI, same trace, all policies: ${Number(process.hrtime.bigint() - t0) / 1e6} ms`);
}
const sweep = process.env.SWEEP || 'sf-batch';
{
  await page.selectOption('[data-testid=sf-preset]', { label: sweep });
  for (const [sel, v] of [['#sf-seeds', '10'], ['#sf-batches', '20000']]) {
    await page.fill(sel, v);
    await page.press(sel, 'Tab');
  }
  const t0 = Date.now();
  await page.click('[data-testid=sf-run]');
  await page.waitForFunction(() => /^done/.test(document.querySelector('[data-testid=sf-status]')?.textContent), null, { timeout: 900_000 });
  console.log(`${sweep}, 10 seeds × 20,000 batches in the page: ${Date.now() - t0} ms from click to table (${await page.textContent('[data-testid=sf-status]')})`);
  const t1 = process.hrtime.bigint();
  execFileSync(cli, ['run', '--preset', sweep, '--seeds', '10', '--batches', '20000']);
  console.log(`  native CLI, same sweep: ${Number(process.hrtime.bigint() - t1) / 1e6} ms`);
}
// A 1,000,000-job Lublin–Feitelson workload under all five policies, from a share link (it
// asks to confirm: 5,000,000 job-runs), with the longest main-thread task while it runs.
{
  const scenario = {
    version: 1, name: 'a million jobs', seed: 1,
    platform: { kind: 'from_trace', procs: 128 },
    workload: { kind: 'lublin', jobs: 1_000_000 },
    algorithms: ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit'].map((local) => ({ local })),
  };
  const hash = `#s1=${zlib.deflateRawSync(Buffer.from(JSON.stringify({ scenario, files: [] })), { level: 9 }).toString('base64url')}`;
  const big = await newPage(browser);
  await watchLongTasks(big);
  await big.goto(server.url + hash);
  await big.waitForSelector('[data-testid=confirm-run]');
  const since = await big.evaluate(() => performance.now());
  const t0 = Date.now();
  await big.click('[data-testid=confirm-run]');
  await waitResults(big, 5, 900_000);
  const took = Date.now() - t0;
  await big.waitForTimeout(1000); // the Gantt chart is drawn after the results
  const longest = await longestSince(big, since);
  const heap = await big.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
  console.log(`Lublin 1,000,000 jobs, all five policies in the page: ${took} ms from Run to results (worker: ${await status(big)}); longest main-thread task ${longest.toFixed(0)} ms; page JS heap ${(heap / 2 ** 20).toFixed(0)} MiB`);
  const t1 = process.hrtime.bigint();
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'gridscope-bench-'));
  fs.writeFileSync(path.join(dir, 's.json'), JSON.stringify(scenario));
  execFileSync(cli, ['run', path.join(dir, 's.json'), '--threads', '1']);
  console.log(`  native CLI, same scenario, one thread: ${Number(process.hrtime.bigint() - t1) / 1e6} ms`);
  fs.rmSync(dir, { recursive: true });
}
// The page's pool of engine workers: each case with hardwareConcurrency forced to 1 (every
// run in the page's engine worker) and as the machine reports it (the runs spread over a
// pool), the first run (pool workers started and sent the files) and a second (warm).
// POOL=0 skips it.
if (process.env.POOL !== '0') {
  const lublin = (jobs) => ({
    version: 1, name: `lublin ${jobs}`, seed: 1,
    platform: { kind: 'from_trace', procs: 128 },
    workload: { kind: 'lublin', jobs },
    algorithms: ['fcfs', 'easy', 'conservative', 'sjf', 'firstfit'].map((local) => ({ local })),
  });
  const link = (scenario) => `#s1=${zlib.deflateRawSync(Buffer.from(JSON.stringify({ scenario, files: [] })), { level: 9 }).toString('base64url')}`;
  const cases = [
    ['SDSC-BLUE, all five policies', { file: 'SDSC-BLUE-2000-4.2-cln.swf.gz', runs: 5 }],
    ['sob-synthetic-heavy (six grid schemes)', { preset: 'sob-synthetic-heavy', runs: 6 }],
    ['Lublin 200,000 jobs, all five policies', { hash: link(lublin(200_000)), runs: 5 }],
    ['Lublin 1,000,000 jobs, all five policies', { hash: link(lublin(1_000_000)), runs: 5 }],
  ];
  const cores = await (async () => { const p = await newPage(browser); const n = await p.evaluate(() => navigator.hardwareConcurrency); await p.close(); return n; })();
  for (const [name, c] of cases) {
    for (const forced of [1, cores]) {
      const p = await newPage(browser);
      await p.addInitScript((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => n }), forced);
      const times = [];
      const done = async (t0) => {
        await p.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('done'), null, { timeout: 900_000 });
        await waitResults(p, c.runs, 900_000);
        times.push(`${Date.now() - t0} ms (${await status(p)})`);
      };
      let t0 = Date.now();
      await p.goto(server.url + (c.hash || ''));
      if (c.hash) {
        // The link runs on load (or asks first, above the confirm estimate).
        await p.waitForSelector('[data-testid=confirm-run], [data-testid=results] tbody tr', { timeout: 900_000 });
        if (await p.$('[data-testid=confirm-run]')) {
          t0 = Date.now();
          await p.click('[data-testid=confirm-run]');
        }
      } else {
        await waitResults(p, 5);
        t0 = Date.now();
        if (c.file) {
          await dropFiles(p, [{ name: c.file, bytes: fs.readFileSync(path.join(traces, c.file)) }]);
          await p.waitForFunction((n) => document.querySelector('[data-testid=run-info]')?.textContent.includes(n), c.file.split('.')[0], { timeout: 900_000 });
        } else {
          await p.selectOption('[data-testid=scenario-preset]', c.preset);
          await p.click('[data-testid=run]');
        }
      }
      await done(t0);
      t0 = Date.now();
      await p.click('[data-testid=run]');
      await p.waitForFunction(() => document.querySelector('[data-testid=status]').textContent.startsWith('running'), null, { timeout: 60_000 }).catch(() => {});
      await done(t0);
      console.log(`pool: ${name}, hardwareConcurrency ${forced}: first ${times[0]}, again ${times[1]}`);
      await p.close();
    }
  }
}
await browser.close();
await server.close();
