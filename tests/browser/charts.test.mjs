// Page tests of the charts themselves: the hover tooltip over each canvas and the PNG export
// (release build in dist/: `trunk build --release --offline` first):   node --test tests/browser/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { waitResults, pageSuite, assertCleanPages } from './harness.mjs';

const { open, pages } = pageSuite();

/** The tooltip of chart `id`: its text, and its box when shown (null when hidden). */
function tooltip(page, id) {
  return page.$eval(`[data-testid=${id}-hover]`, (t) => {
    const r = t.getBoundingClientRect();
    const shown = getComputedStyle(t).display !== 'none' && r.width > 0 && r.height > 0;
    return { text: t.textContent, box: shown ? { x: r.x, y: r.y, width: r.width, height: r.height } : null };
  });
}

test('hovering a chart shows a tooltip with the numbers under the pointer, beside the pointer', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.waitForTimeout(300);
  // The old text line under each chart is gone: the tooltip is the only read-out.
  assert.equal(await page.$$eval('output.hover', (o) => o.length), 0);
  for (const id of ['chart-bars', 'chart-cdf', 'chart-util', 'chart-queue', 'chart-gantt']) {
    assert.equal((await tooltip(page, id)).box, null, `${id}: tooltip shown before any hover`);
  }

  const cdf = page.locator('[data-testid=chart-cdf]');
  await cdf.scrollIntoViewIfNeeded();
  const box = await cdf.boundingBox();
  const at = { x: box.width * 0.3, y: box.height * 0.5 };
  await cdf.hover({ position: at });
  await page.waitForFunction(() => /^waiting at most \S+: fcfs [\d.]+ %, easy [\d.]+ %/.test(document.querySelector('[data-testid=chart-cdf-hover]').textContent));
  const tip = await tooltip(page, 'chart-cdf');
  console.log(`# wait CDF tooltip: ${tip.text}`);
  assert.ok(tip.box, 'the tooltip is shown');
  // Absolutely positioned over the chart, just right of and below the pointer.
  const px = box.x + at.x;
  const py = box.y + at.y;
  assert.ok(tip.box.x > px && tip.box.x < px + 40, `tooltip x ${tip.box.x}, pointer ${px}`);
  assert.ok(tip.box.y > py && tip.box.y < py + 40, `tooltip y ${tip.box.y}, pointer ${py}`);
  // In the chart's right half it opens to the left of the pointer (the plot ends where
  // the legend beside it begins).
  const right = { x: box.width * 0.78, y: box.height * 0.5 };
  await cdf.hover({ position: right });
  await page.waitForTimeout(100);
  const flipped = await tooltip(page, 'chart-cdf');
  assert.ok(flipped.box && flipped.box.x + flipped.box.width < box.x + right.x, 'tooltip flips left of the pointer');
  // Leaving the chart hides it.
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => document.querySelector('[data-testid=chart-cdf-hover]').textContent === '');
  assert.equal((await tooltip(page, 'chart-cdf')).box, null);

  // Every chart of the demo has numbers under the pointer.
  const expect = {
    'chart-bars': /^(fcfs|easy): Average wait [\d,.]+ = [\d.]+ × fcfs$/,
    'chart-util': /^day [\d.]+: cluster [\d.]+ %$/,
    'chart-queue': /^day [\d.]+: cluster [\d.]+ jobs$/,
    'chart-gantt': /job \d+: start [\d.]+ h|idle/,
  };
  for (const [id, re] of Object.entries(expect)) {
    const c = page.locator(`[data-testid=${id}]`);
    const b = await c.boundingBox();
    await c.hover({ position: { x: b.width * 0.3, y: b.height * 0.6 } });
    await page.waitForFunction(([id, re]) => new RegExp(re).test(document.querySelector(`[data-testid=${id}-hover]`).textContent), [id, re.source]);
    assert.ok((await tooltip(page, id)).box, `${id}: tooltip shown`);
  }
});

test("the SF panel's charts have tooltips too", async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.click('[data-testid=tab-sf]');
  const alloc = page.locator('[data-testid=chart-alloc]');
  await alloc.scrollIntoViewIfNeeded();
  const a = await alloc.boundingBox();
  await alloc.hover({ position: { x: a.width * 0.5, y: a.height * 0.5 } });
  await page.waitForFunction(() => /^resource \d+ \(μ = [\d.]+\): OWA α [\d.]+, WW α [\d.]+$/.test(document.querySelector('[data-testid=chart-alloc-hover]').textContent));
  await page.selectOption('[data-testid=sf-preset]', { label: 'sf-heterogeneity' });
  for (const [sel, v] of [['#sf-seeds', '2'], ['#sf-batches', '1000']]) { await page.fill(sel, v); await page.press(sel, 'Tab'); }
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=sf-table]', { timeout: 60_000 });
  await page.waitForTimeout(300);
  const sweep = page.locator('[data-testid=chart-sweep]');
  await sweep.scrollIntoViewIfNeeded();
  const s = await sweep.boundingBox();
  await sweep.hover({ position: { x: s.width * 0.5, y: s.height * 0.5 } });
  await page.waitForFunction(() => /= [\d.]+: \w+ [\d.,]+ s \(band [\d.,]+ – [\d.,]+\)/.test(document.querySelector('[data-testid=chart-sweep-hover]').textContent));
});

test('each chart saves as a PNG image', async () => {
  const page = await open();
  await waitResults(page, 5);
  await page.waitForTimeout(300);
  for (const id of ['chart-bars', 'chart-cdf', 'chart-gantt']) {
    await page.hover(`[data-testid=${id}]`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${id}-png]`)]);
    assert.match(download.suggestedFilename(), /^gridscope-.+\.png$/);
    const bytes = fs.readFileSync(await download.path());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${id}: not a PNG`);
    assert.ok(bytes.length > 2000, `${id}: PNG of ${bytes.length} bytes`);
  }
});

/** Every visible chart canvas: its backing size, its CSS content size and the ratio. */
function canvasSizes(page) {
  return page.$$eval('figure.chart canvas', (cs) => cs.filter((c) => c.clientWidth > 0).map((c) => ({
    id: c.dataset.testid, w: c.width, h: c.height, cw: c.clientWidth, ch: c.clientHeight, ratio: devicePixelRatio,
  })));
}

function assertSharp(sizes, what) {
  assert.ok(sizes.length >= 5, `${what}: only ${sizes.length} charts`);
  for (const s of sizes) {
    assert.ok(Math.abs(s.w - s.cw * s.ratio) <= 1 && Math.abs(s.h - s.ch * s.ratio) <= 1,
      `${what} ${s.id}: backing ${s.w}×${s.h}, CSS ${s.cw}×${s.ch} at ratio ${s.ratio}`);
  }
}

test('every chart is sharp: its canvas holds its CSS size × devicePixelRatio, on a HiDPI laptop, a phone and after a resize', async () => {
  const laptop = await open('', { viewport: { width: 1400, height: 900 }, deviceScaleFactor: 2 });
  await waitResults(laptop, 5);
  await laptop.waitForTimeout(300);
  const wide = await canvasSizes(laptop);
  assertSharp(wide, 'laptop');
  assert.equal(wide.find((s) => s.id === 'chart-bars').cw, 640, 'a chart keeps its design width where there is room');
  // A narrower window: the charts follow their boxes and stay sharp.
  await laptop.setViewportSize({ width: 560, height: 900 });
  await laptop.waitForFunction(() => document.querySelector('[data-testid=chart-bars]').clientWidth < 640);
  await laptop.waitForTimeout(300);
  assertSharp(await canvasSizes(laptop), 'laptop at 560 px');
  // A hidden view's charts are drawn to their box when it is shown.
  await laptop.click('[data-testid=tab-sf]');
  await laptop.waitForTimeout(300);
  assertSharp([...(await canvasSizes(laptop)), ...wide], 'SF view');

  const phone = await open('', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  await waitResults(phone, 5);
  await phone.waitForTimeout(300);
  const small = await canvasSizes(phone);
  assertSharp(small, 'phone');
  for (const s of small) {
    assert.ok(s.cw <= 390 && s.ch >= 200, `phone ${s.id}: ${s.cw}×${s.ch} CSS px`);
  }
});

test('a chart has its numbers as a table under it, for screen readers and copying', async () => {
  const page = await open();
  const rows = await waitResults(page, 5);
  // The bars: every run, its metric and its ratio to the baseline (fcfs: 1.000).
  const bars = await page.$$eval('[data-testid=chart-bars-data] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(bars.map((r) => r[0]), Object.keys(rows));
  assert.equal(bars[0][2], '1.000');
  assert.equal(await page.getAttribute('[data-testid=chart-bars]', 'role'), 'img');
  // The wait CDF: the wait half of the jobs stay within, per run.
  const cdf = await page.$$eval('[data-testid=chart-cdf-data] thead th', (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(cdf, ['run', 'half of the jobs wait at most', '90 %', '99 %', 'all']);
  // An SF sweep's lines: one row per policy, one column per point, median and band.
  await page.click('[data-testid=tab-sf]');
  await page.fill('#sf-seeds', '2'); await page.press('#sf-seeds', 'Tab');
  await page.fill('#sf-batches', '300'); await page.press('#sf-batches', 'Tab');
  await page.click('[data-testid=sf-run]');
  await page.waitForSelector('[data-testid=chart-sweep-data]', { state: 'attached', timeout: 60_000 });
  const sweep = await page.$$eval('[data-testid=chart-sweep-data] tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
  assert.ok(sweep.length >= 2 && sweep.every((c) => /^[\d.,]+ s \([\d.,]+ – [\d.,]+\)$/.test(c)), JSON.stringify(sweep));
});

test('no request left 127.0.0.1 and nothing was logged as an error (chart pages)', () => {
  assertCleanPages(pages, 2);
});
